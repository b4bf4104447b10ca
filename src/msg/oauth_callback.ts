/**
 * The loopback redirect of an OAuth login: a local server on `http://localhost:PORT/callback`
 * (listening on 127.0.0.1 and, when the host has it, ::1 on the same port) that takes the
 * authorization code of one sign-in, checks its state, and answers the browser with a page that
 * says how the sign-in ended.
 *
 * @module
 */

import { OAuthError } from "./oauth.ts";

/** A running callback server of one login. */
export interface CallbackServer {
  /** The redirect URI to put in the authorize URL (`http://localhost:PORT/callback`). */
  redirectUri: string;
  /**
   * The code of the first callback. Rejects with an {@link OAuthError} when the authorization
   * server answers an error, the callback carries no code or a wrong state, or no callback
   * comes within `timeoutMs`; the server is stopped before it rejects.
   */
  waitForCode(timeoutMs: number): Promise<string>;
  /** Answers the browser waiting on a good callback: a 200 page (`ok`) or a 400 one. */
  finish(ok: boolean, message: string): void;
  /** Stops both listeners once the pages in flight are sent. */
  close(): Promise<void>;
}

/** The page the browser gets after the redirect. */
function page(ok: boolean, message: string): Response {
  const html = `<!doctype html><meta charset="utf-8"><title>msgcli login</title><p>${message}</p>`;
  return new Response(html, {
    status: ok ? 200 : 400,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
  });
}

/** Starts the callback server for a login whose authorize URL carries `state`. */
export function startCallbackServer(state: string): CallbackServer {
  let resolveCode!: (code: string) => void;
  let rejectCode!: (e: Error) => void;
  const codePromise = new Promise<string>((res, rej) => {
    resolveCode = res;
    rejectCode = rej;
  });
  codePromise.catch(() => {}); // a rejection nobody waits for (closed unused) is no error
  let finish!: (ok: boolean, message: string) => void;
  const done = new Promise<{ ok: boolean; message: string }>((res) => {
    finish = (ok, message) => res({ ok, message });
  });
  const handler = async (req: Request): Promise<Response> => {
    const u = new URL(req.url);
    if (u.pathname !== "/callback") return new Response("not found", { status: 404 });
    const err = u.searchParams.get("error");
    if (err) {
      const description = u.searchParams.get("error_description");
      rejectCode(
        new OAuthError(
          err,
          0,
          `login: the authorization server answered ${err}${description ? `: ${description}` : ""}`,
        ),
      );
      return page(false, "Sign-in failed. You can close this tab.");
    }
    const c = u.searchParams.get("code");
    const s = u.searchParams.get("state");
    if (!c || s !== state) {
      rejectCode(
        new OAuthError(
          "state_mismatch",
          0,
          "login: the callback carried no code or a wrong state; start again",
        ),
      );
      return page(false, "Sign-in failed (state mismatch). You can close this tab.");
    }
    resolveCode(c);
    const r = await done;
    return page(r.ok, r.message);
  };
  // "localhost" in the redirect may resolve to 127.0.0.1 or ::1: listen on both
  // (the IPv6 one only when the host has IPv6 loopback).
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const port = (server.addr as Deno.NetAddr).port;
  let server6: Deno.HttpServer | undefined;
  try {
    server6 = Deno.serve({ hostname: "::1", port, onListen: () => {} }, handler);
  } catch {
    server6 = undefined;
  }
  let closing: Promise<void> | undefined;
  const close = () => {
    // A wait still pending ends (its timer too): the sign-in finished another way.
    rejectCode(new OAuthError("closed", 0, "login: the callback server was closed"));
    closing ??= (async () => {
      await server.shutdown();
      await server6?.shutdown();
    })();
    return closing;
  };
  return {
    redirectUri: `http://localhost:${port}/callback`,
    async waitForCode(timeoutMs) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new OAuthError(
                "timeout",
                0,
                `login: no browser callback within ${
                  timeoutMs / 60_000
                } minutes; run "msgcli login" again (or "msgcli login --manual")`,
              ),
            ),
          timeoutMs,
        );
      });
      try {
        const code = await Promise.race([codePromise, timeout]);
        clearTimeout(timer);
        return code;
      } catch (e) {
        clearTimeout(timer);
        // Let the browser get its error page before exiting.
        await close();
        throw e;
      }
    },
    finish,
    close,
  };
}
