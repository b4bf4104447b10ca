/**
 * A forward proxy that refuses everything: every connection is answered with 502 and counted,
 * so that a test can tell whether a program sent a call through the proxy of its environment.
 * Listens on 127.0.0.1.
 *
 * @module
 */
import { freePort } from "../helpers.ts";

/** A running refusing proxy. */
export interface RefusingProxy {
  /** e.g. http://127.0.0.1:43123 (what HTTP_PROXY takes). */
  url: string;
  /** Connections since the start or the last reset. */
  count(): number;
  reset(): void;
  close(): void;
}

/** Start a proxy that answers every connection with 502 and counts them. */
export function refusingProxy(): RefusingProxy {
  const port = freePort();
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  let n = 0;
  (async () => {
    for await (const conn of listener) {
      n++;
      const reply = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      conn.write(new TextEncoder().encode(reply)).catch(() => {}).finally(() => {
        try {
          conn.close();
        } catch { /* closed */ }
      });
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => n,
    reset: () => (n = 0),
    close: () => listener.close(),
  };
}
