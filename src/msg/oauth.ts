/**
 * OAuth 2 authorization code flow with PKCE (S256) and state, code exchange and refresh,
 * against the endpoints of {@link MsgConfig}. Token requests are JSON bodies, as public
 * subscription clients send them.
 *
 * @module
 */

import { DEFAULTS, type MsgConfig } from "./config.ts";
import { readText } from "../common/body.ts";

/** A token endpoint answer. `refreshToken` is absent when the server did not rotate it. */
export interface TokenResponse {
  accessToken: string;
  refreshToken?: string;
  /** Lifetime of the access token in seconds. */
  expiresIn: number;
}

/** A failed OAuth call: `code` is the OAuth error (e.g. `invalid_grant`), `status` the HTTP one (0 for network errors). */
export class OAuthError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, status: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "OAuthError";
    this.code = code;
    this.status = status;
  }
}

/** A PKCE verifier and its S256 challenge. */
export interface Pkce {
  verifier: string;
  challenge: string;
}

/** Base64url without padding. */
export function base64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** S256 challenge of a verifier: base64url(sha256(verifier)). */
export async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** A fresh PKCE pair (43-char verifier from 32 random bytes). */
export async function generatePkce(): Promise<Pkce> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  return { verifier, challenge: await pkceChallenge(verifier) };
}

/** A fresh random state value (base64url of 32 random bytes). */
export function generateState(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** Parameters of {@link authorizeUrl}. */
export interface AuthorizeParams {
  redirectUri: string;
  codeChallenge: string;
  state: string;
  /** Space-separated scopes; default `user:profile user:inference user:sessions:claude_code`. */
  scopes?: string;
}

/** The URL the user opens in a browser to sign in. */
export function authorizeUrl(cfg: MsgConfig, p: AuthorizeParams): string {
  const url = new URL(cfg.authorizeUrl);
  url.searchParams.set("code", "true");
  url.searchParams.set("client_id", cfg.clientId);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("redirect_uri", p.redirectUri);
  url.searchParams.set("scope", p.scopes ?? DEFAULTS.scopes);
  url.searchParams.set("code_challenge", p.codeChallenge);
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", p.state);
  return url.toString();
}

/**
 * Splits what the manual-login page shows (`code#state`) into its parts. Surrounding
 * whitespace is ignored. Throws when the input is empty or has no `#state` part.
 */
export function parseManualCode(input: string): { code: string; state: string } {
  const text = input.trim();
  const i = text.indexOf("#");
  if (text === "" || i <= 0 || i === text.length - 1) {
    throw new OAuthError(
      "invalid_request",
      0,
      'expected the pasted value in the form "code#state" as shown on the page',
    );
  }
  return { code: text.slice(0, i), state: text.slice(i + 1) };
}

/**
 * Longest wait for a token endpoint answer (headers and body). A refresh runs under the
 * exclusive credentials lock: without a bound, an endpoint or proxy that never answers would
 * hold the lock (and the daemon's keepalive) forever instead of failing and retrying.
 */
export const TOKEN_REQUEST_TIMEOUT_MS = 60_000;

async function tokenRequest(
  cfg: MsgConfig,
  fetchFn: typeof fetch,
  body: Record<string, string>,
  timeoutMs = TOKEN_REQUEST_TIMEOUT_MS,
): Promise<TokenResponse & { raw: Record<string, unknown> }> {
  const ac = new AbortController();
  const timer = setTimeout(() => {
    ac.abort(
      new OAuthError(
        "timeout",
        0,
        `token endpoint ${cfg.tokenUrl} did not answer within ${timeoutMs / 1000} s`,
      ),
    );
  }, timeoutMs);
  let res: Response;
  let text: string;
  try {
    try {
      res = await fetchFn(cfg.tokenUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
        signal: ac.signal,
      });
      // A token reply is small: 64 KiB is plenty (a longer one is cut and fails to parse).
      text = await readText(res, { limit: 64 * 1024, truncate: true });
    } catch (e) {
      if (ac.signal.aborted) throw ac.signal.reason;
      throw new OAuthError(
        "network_error",
        0,
        `token endpoint ${cfg.tokenUrl} unreachable: ${(e as Error).message}`,
        { cause: e },
      );
    }
  } finally {
    clearTimeout(timer);
  }
  let json: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null) json = parsed as Record<string, unknown>;
  } catch {
    // not JSON; handled below
  }
  if (!res.ok) {
    // OAuth errors: {error, error_description}; API-style: {type:"error", error:{type, message}}.
    let code = "http_error";
    let message = "";
    if (typeof json.error === "string") {
      code = json.error;
      message = typeof json.error_description === "string" ? json.error_description : "";
    } else if (typeof json.error === "object" && json.error !== null) {
      const e = json.error as Record<string, unknown>;
      if (typeof e.type === "string") code = e.type;
      if (typeof e.message === "string") message = e.message;
    }
    throw new OAuthError(
      code,
      res.status,
      `token endpoint answered ${res.status} ${code}${message ? `: ${message}` : ""}`,
    );
  }
  const access = json.access_token;
  const refresh = json.refresh_token;
  const expires = json.expires_in;
  if (typeof access !== "string" || access === "") {
    throw new OAuthError("invalid_response", res.status, "token response has no access_token");
  }
  if (typeof expires !== "number" || !Number.isFinite(expires) || expires <= 0) {
    throw new OAuthError("invalid_response", res.status, "token response has no valid expires_in");
  }
  const out: TokenResponse & { raw: Record<string, unknown> } = {
    accessToken: access,
    expiresIn: expires,
    raw: json,
  };
  if (typeof refresh === "string" && refresh !== "") out.refreshToken = refresh;
  return out;
}

/** Parameters of {@link exchangeCode}. */
export interface ExchangeParams {
  code: string;
  verifier: string;
  redirectUri: string;
  state: string;
}

/** Exchanges an authorization code for tokens. The answer must carry a refresh token. */
export async function exchangeCode(
  cfg: MsgConfig,
  fetchFn: typeof fetch,
  p: ExchangeParams,
): Promise<TokenResponse & { refreshToken: string }> {
  const t = await tokenRequest(cfg, fetchFn, {
    grant_type: "authorization_code",
    code: p.code,
    redirect_uri: p.redirectUri,
    client_id: cfg.clientId,
    code_verifier: p.verifier,
    state: p.state,
  });
  if (t.refreshToken === undefined) {
    throw new OAuthError("invalid_response", 200, "token response has no refresh_token");
  }
  return { accessToken: t.accessToken, refreshToken: t.refreshToken, expiresIn: t.expiresIn };
}

/**
 * Refreshes the access token. The refresh token is single-use: keep the returned one (or the
 * old one when the answer omits it). Throws {@link OAuthError} (`invalid_grant` when rejected).
 */
export async function refreshAccessToken(
  cfg: MsgConfig,
  fetchFn: typeof fetch,
  refreshToken: string,
  timeoutMs = TOKEN_REQUEST_TIMEOUT_MS,
): Promise<TokenResponse> {
  const t = await tokenRequest(cfg, fetchFn, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: cfg.clientId,
  }, timeoutMs);
  const out: TokenResponse = { accessToken: t.accessToken, expiresIn: t.expiresIn };
  if (t.refreshToken !== undefined) out.refreshToken = t.refreshToken;
  return out;
}
