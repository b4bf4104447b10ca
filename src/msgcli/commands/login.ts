/**
 * `msgcli login [--out PATH] [--manual]`: OAuth sign-in with PKCE. By default the browser is
 * sent back to a loopback callback server (src/msg/oauth_callback.ts); with `--manual` the
 * user pastes the `code#state` the provider's page shows. Without `--manual`, when no browser
 * could be opened, or none has answered within `--browser-wait SECONDS` (default 30 s),
 * login prints the `--manual` URL of the same sign-in and accepts the pasted code as well
 * (the callback still counts until the 5-minute deadline). The tokens go to the credentials
 * file (`--out`, else the configured one).
 * @module
 */

import { UsageError } from "../../common/errors.ts";
import { DEFAULTS } from "../../msg/config.ts";
import { CredentialStore } from "../../msg/credentials.ts";
import {
  authorizeUrl,
  exchangeCode,
  generatePkce,
  generateState,
  OAuthError,
  parseManualCode,
} from "../../msg/oauth.ts";
import { type CallbackServer, startCallbackServer } from "../../msg/oauth_callback.ts";
import type { ParsedCommand } from "../args.ts";
import { withRuntime } from "../context.ts";
import type { CliIO } from "../io.ts";

/** How long `login` waits for the browser callback. */
export const LOGIN_TIMEOUT_MS = 5 * 60_000;
/** How long `login` waits for a browser before it offers the `--manual` way (seconds; `--browser-wait`). */
export const LOGIN_HINT_SECONDS = 30;

/** Reads a pasted `code#state` and checks its state; null at end of input. */
async function readPastedCode(io: CliIO, state: string): Promise<string | null> {
  const line = await io.readLine();
  if (line === null) return null;
  const parsed = parseManualCode(line);
  if (parsed.state !== state) {
    throw new OAuthError(
      "state_mismatch",
      0,
      "login: the pasted state does not match; start again",
    );
  }
  return parsed.code;
}

/** Runs `msgcli login`; returns the exit code. */
export function login(p: ParsedCommand, io: CliIO): Promise<number> {
  const hintSeconds = p.browserWaitSeconds ?? LOGIN_HINT_SECONDS;
  return withRuntime(p, io, async ({ cfg, upstream }) => {
    const store = new CredentialStore(cfg.credentialsPath);
    const pkce = await generatePkce();
    const state = generateState();
    const manualUrl = authorizeUrl(cfg, {
      redirectUri: DEFAULTS.manualRedirectUrl,
      codeChallenge: pkce.challenge,
      state,
    });
    let code: string;
    let redirectUri: string;
    let callback: CallbackServer | undefined;
    if (p.manual) {
      redirectUri = DEFAULTS.manualRedirectUrl;
      await io.stderr(`Open this URL in your browser to sign in:\n\n${manualUrl}\n\n`);
      await io.openBrowser(manualUrl);
      await io.stderr('Paste the code shown after sign-in ("code#state"): ');
      const pasted = await readPastedCode(io, state);
      if (pasted === null) throw new UsageError("login: no code was pasted (end of input)");
      code = pasted;
    } else {
      callback = startCallbackServer(state);
      const cb = callback;
      const url = authorizeUrl(cfg, {
        redirectUri: cb.redirectUri,
        codeChallenge: pkce.challenge,
        state,
      });
      await io.stderr(
        `Open this URL in your browser to sign in (waiting for the callback on ${cb.redirectUri}):\n\n${url}\n\n`,
      );
      const opened = await io.openBrowser(url);
      let hintTimer: ReturnType<typeof setTimeout> | undefined;
      // The pasted code, once the hint offered it; never settles while none is pasted.
      const pasted = new Promise<{ code: string; manual: boolean }>((resolve, reject) => {
        const offer = async () => {
          await io.stderr(
            `${
              opened
                ? `No browser has answered within ${hintSeconds} s.`
                : "No browser could be opened on this machine."
            } To sign in from any machine with a browser (over SSH, in a container), open this URL, sign in, and paste the code the page shows ("code#state") here, as "msgcli login --manual" does:\n\n${manualUrl}\n\nCode (or wait for the browser): `,
          );
          try {
            const c = await readPastedCode(io, state);
            if (c !== null) resolve({ code: c, manual: true });
          } catch (e) {
            reject(e);
          }
        };
        if (!opened) void offer();
        else hintTimer = setTimeout(() => void offer(), hintSeconds * 1000);
      });
      try {
        const won = await Promise.race([
          cb.waitForCode(LOGIN_TIMEOUT_MS).then((c) => ({ code: c, manual: false })),
          pasted,
        ]);
        code = won.code;
        redirectUri = won.manual ? DEFAULTS.manualRedirectUrl : cb.redirectUri;
        if (won.manual) {
          cb.finish(false, "Signed in by the pasted code instead. You can close this tab.");
        }
      } catch (e) {
        await cb.close();
        throw e;
      } finally {
        clearTimeout(hintTimer);
      }
    }
    try {
      const tokens = await exchangeCode(cfg, upstream.fetch, {
        code,
        verifier: pkce.verifier,
        redirectUri,
        state,
      });
      await store.write({
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken,
        expiresAt: Date.now() + tokens.expiresIn * 1000,
      });
      callback?.finish(true, "Signed in to msgcli. You can close this tab.");
    } catch (e) {
      callback?.finish(false, "Sign-in failed; see the terminal. You can close this tab.");
      throw e;
    } finally {
      await callback?.close();
    }
    await io.stderr(`Logged in. Credentials written to ${cfg.credentialsPath}\n`);
    return 0;
  }, p.out);
}
