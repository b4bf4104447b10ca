/**
 * A server-sent-events parser (WHATWG framing: `event:`, `data:` (multi-line joined by
 * `\n`), `id:`, comments starting with `:`, LF / CRLF / CR line ends, dispatch on a blank
 * line).
 *
 * @module
 */

/** One dispatched event; `event` defaults to `message`. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/** Parses a byte stream into events. Events without data are not dispatched. */
export async function* parseSse(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<SseEvent, void, undefined> {
  const decoder = new TextDecoder();
  let buf = "";
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  let sawCr = false;

  function* lines(chunk: string): Generator<string> {
    buf += chunk;
    let start = 0;
    for (let i = 0; i < buf.length; i++) {
      const ch = buf[i];
      if (ch === "\n" && sawCr) {
        sawCr = false;
        start = i + 1;
        continue;
      }
      sawCr = false;
      if (ch === "\r" || ch === "\n") {
        yield buf.slice(start, i);
        if (ch === "\r") sawCr = true;
        start = i + 1;
      }
    }
    buf = buf.slice(start);
  }

  function* handle(line: string): Generator<SseEvent> {
    if (line === "") {
      if (data.length > 0) {
        const ev: SseEvent = { event: event || "message", data: data.join("\n") };
        if (id !== undefined) ev.id = id;
        yield ev;
      }
      event = "";
      data = [];
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }

  const reader = stream.getReader();
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const line of lines(decoder.decode(value, { stream: true }))) yield* handle(line);
    }
    for (const line of lines(decoder.decode() + "\n")) yield* handle(line);
    yield* handle("");
  } finally {
    reader.releaseLock();
  }
}
