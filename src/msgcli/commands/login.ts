/**
 * `msgcli login [--out PATH] [--manual]`: OAuth sign-in with PKCE. By default the browser is
 * sent back to a loopback callback server (src/msg/oauth_callback.ts); with `--manual` the
 * user pastes the `code#state` the provider's page shows. The tokens go to the credentials
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

/** Runs `msgcli login`; returns the exit code. */
export function login(p: ParsedCommand, io: CliIO): Promise<number> {
  return withRuntime(p, io, async ({ cfg, upstream }) => {
    const store = new CredentialStore(cfg.credentialsPath);
    const pkce = await generatePkce();
    const state = generateState();
    let code: string;
    let redirectUri: string;
    let callback: CallbackServer | undefined;
    if (p.manual) {
      redirectUri = DEFAULTS.manualRedirectUrl;
      const url = authorizeUrl(cfg, { redirectUri, codeChallenge: pkce.challenge, state });
      await io.stderr(`Open this URL in your browser to sign in:\n\n${url}\n\n`);
      await io.openBrowser(url);
      await io.stderr('Paste the code shown after sign-in ("code#state"): ');
      const line = await io.readLine();
      if (line === null) throw new UsageError("login: no code was pasted (end of input)");
      const parsed = parseManualCode(line);
      if (parsed.state !== state) {
        throw new OAuthError(
          "state_mismatch",
          0,
          "login: the pasted state does not match; start again",
        );
      }
      code = parsed.code;
    } else {
      callback = startCallbackServer(state);
      redirectUri = callback.redirectUri;
      const url = authorizeUrl(cfg, { redirectUri, codeChallenge: pkce.challenge, state });
      await io.stderr(
        `Open this URL in your browser to sign in (waiting for the callback on ${redirectUri}):\n\n${url}\n\n`,
      );
      await io.openBrowser(url);
      code = await callback.waitForCode(LOGIN_TIMEOUT_MS);
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
