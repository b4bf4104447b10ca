/**
 * Configuration of the messages client (`msgcli`) and its daemon (`msgcli serve`).
 *
 * Every upstream constant is configurable through `MSGCLI_*` environment variables so that
 * tests and users behind gateways can point the client elsewhere. Defaults follow
 * DESIGN.md, "Messages client decisions".
 *
 * @module
 */

/** Reads an environment variable; `Deno.env.get` in production, a map in tests. */
export type EnvGetter = (name: string) => string | undefined;

/** Resolved configuration shared by the CLI and the daemon. */
export interface MsgConfig {
  /** Messages API base, without trailing slash (default `https://api.anthropic.com`). */
  apiBaseUrl: string;
  /** OAuth authorize page (default `https://claude.ai/oauth/authorize`). */
  authorizeUrl: string;
  /** OAuth token endpoint (default `https://platform.claude.com/v1/oauth/token`). */
  tokenUrl: string;
  /** OAuth client id. */
  clientId: string;
  /** Credentials file (default `~/.config/msgcli/credentials.json`). */
  credentialsPath: string;
  /** Verbose logging to stderr (`MSGCLI_DEBUG=1`). */
  debug: boolean;
  /** Proxy URL for API and OAuth traffic, already validated; absent means direct. */
  proxy?: string;
}

/** Default upstream constants (2026). */
export const DEFAULTS = {
  apiBaseUrl: "https://api.anthropic.com",
  authorizeUrl: "https://claude.ai/oauth/authorize",
  tokenUrl: "https://platform.claude.com/v1/oauth/token",
  clientId: "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
  /** Redirect used by `login --manual`; the page shows `code#state` to paste. */
  manualRedirectUrl: "https://platform.claude.com/oauth/code/callback",
  scopes: "user:profile user:inference user:sessions:claude_code",
} as const;

/** Schemes accepted for `--proxy`, `HTTPS_PROXY` and `ALL_PROXY`. */
export const PROXY_SCHEMES = ["http", "https", "socks5", "socks5h"] as const;

/** Error in configuration (bad env value, bad proxy URL); `source` names the flag or variable. */
export class ConfigError extends Error {
  /** The flag or environment variable at fault, e.g. `--proxy` or `HTTPS_PROXY`. */
  readonly source: string;
  constructor(source: string, message: string, options?: ErrorOptions) {
    super(`${source}: ${message}`, options);
    this.name = "ConfigError";
    this.source = source;
  }
}

const defaultEnv: EnvGetter = (name) => Deno.env.get(name);

function nonEmpty(env: EnvGetter, name: string): string | undefined {
  const v = env(name);
  return v === undefined || v.trim() === "" ? undefined : v.trim();
}

function httpUrl(env: EnvGetter, name: string, fallback: string): string {
  const raw = nonEmpty(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `not a valid URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(name, `scheme must be http or https, got ${url.protocol}`);
  }
  return raw.replace(/\/+$/, "");
}

/** Home directory from HOME (or USERPROFILE on Windows); throws when neither is set. */
export function homeDir(env: EnvGetter = defaultEnv): string {
  const home = nonEmpty(env, "HOME") ?? nonEmpty(env, "USERPROFILE");
  if (!home) {
    throw new ConfigError(
      "HOME",
      "not set; set MSGCLI_CREDENTIALS_PATH to choose where credentials live",
    );
  }
  return home;
}

/** `~/.config/msgcli/credentials.json`, or `MSGCLI_CREDENTIALS_PATH` when set. */
export function defaultCredentialsPath(env: EnvGetter = defaultEnv): string {
  const override = nonEmpty(env, "MSGCLI_CREDENTIALS_PATH");
  if (override) return override;
  const sep = Deno.build.os === "windows" ? "\\" : "/";
  return [homeDir(env), ".config", "msgcli", "credentials.json"].join(sep);
}

/** True for `1`, `true`, `yes`, `on` (any case). */
export function envFlag(value: string | undefined): boolean {
  return value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());
}

/**
 * Loads the configuration from the environment:
 * `MSGCLI_API_BASE_URL`, `MSGCLI_OAUTH_AUTHORIZE_URL`, `MSGCLI_OAUTH_TOKEN_URL`,
 * `MSGCLI_OAUTH_CLIENT_ID`, `MSGCLI_CREDENTIALS_PATH`, `MSGCLI_DEBUG`, and the proxy: the
 * `--proxy` value `proxyFlag` when given, else the proxy variables (`HTTPS_PROXY`/`https_proxy`,
 * then `ALL_PROXY`/`all_proxy`), resolved once here (see {@link resolveProxy}). Throws
 * {@link ConfigError}.
 */
export function loadMsgConfig(env: EnvGetter = defaultEnv, proxyFlag?: string): MsgConfig {
  const cfg: MsgConfig = {
    apiBaseUrl: httpUrl(env, "MSGCLI_API_BASE_URL", DEFAULTS.apiBaseUrl),
    authorizeUrl: httpUrl(env, "MSGCLI_OAUTH_AUTHORIZE_URL", DEFAULTS.authorizeUrl),
    tokenUrl: httpUrl(env, "MSGCLI_OAUTH_TOKEN_URL", DEFAULTS.tokenUrl),
    clientId: nonEmpty(env, "MSGCLI_OAUTH_CLIENT_ID") ?? DEFAULTS.clientId,
    credentialsPath: defaultCredentialsPath(env),
    debug: envFlag(env("MSGCLI_DEBUG")),
  };
  const proxy = resolveProxy(proxyFlag, env);
  if (proxy !== undefined) cfg.proxy = proxy;
  return cfg;
}

/**
 * Picks the proxy: the flag when given, else `HTTPS_PROXY`/`https_proxy`, else
 * `ALL_PROXY`/`all_proxy`. The result is validated with {@link validateProxyUrl}; the error
 * names the source (`--proxy` or the variable). Returns undefined for a direct connection.
 */
export function resolveProxy(
  flag: string | undefined,
  env: EnvGetter = defaultEnv,
): string | undefined {
  if (flag !== undefined) {
    validateProxyUrl(flag, "--proxy");
    return flag;
  }
  for (const name of ["HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"]) {
    const v = nonEmpty(env, name);
    if (v !== undefined) {
      validateProxyUrl(v, name);
      return v;
    }
  }
  return undefined;
}

/**
 * Validates a proxy URL and returns it parsed. Scheme must be http, https, socks5 or socks5h;
 * a host is required; userinfo (`user:pass@`) becomes proxy basic auth. Throws
 * {@link ConfigError} naming `source`; the message never repeats the password.
 */
export function validateProxyUrl(raw: string, source = "--proxy"): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      source,
      `not a valid proxy URL (expected scheme://[user:pass@]host:port with scheme ${
        PROXY_SCHEMES.join(", ")
      })`,
    );
  }
  const scheme = url.protocol.replace(/:$/, "");
  if (!(PROXY_SCHEMES as readonly string[]).includes(scheme)) {
    throw new ConfigError(
      source,
      `unsupported proxy scheme "${scheme}" (use ${PROXY_SCHEMES.join(", ")})`,
    );
  }
  if (url.hostname === "") throw new ConfigError(source, "proxy URL has no host");
  if (url.pathname !== "" && url.pathname !== "/") {
    throw new ConfigError(source, "proxy URL must not have a path");
  }
  if (url.search !== "" || url.hash !== "") {
    throw new ConfigError(source, "proxy URL must not have a query or fragment");
  }
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
  } catch {
    throw new ConfigError(
      source,
      "proxy URL user or password has an invalid %-escape (write a literal % as %25)",
    );
  }
  return url;
}
