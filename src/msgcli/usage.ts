/**
 * Usage text of `msgcli` (kept apart so that `--help` loads nothing else of the commands).
 * `msgcli serve --help` has its own, in `src/serve/flags.ts`.
 * @module
 */

import { DEFAULT_MAX_TOKENS, DEFAULT_MODEL } from "../msg/prepare.ts";
import { VERSION } from "../version.ts";

/** Usage text printed by `--help`. */
export const USAGE =
  `msgcli v${VERSION}: a Messages API client that signs in with your Claude subscription

Usage:
  msgcli login [--out PATH] [--manual] [--browser-wait SECONDS]
                                         sign in (OAuth with PKCE) and write the credentials file
  msgcli logout                          remove the credentials (the token is not revoked:
                                         the protocol documents no revocation endpoint)
  msgcli query "<prompt>" [gen flags]    send one prompt and print the reply
  msgcli "<prompt>" [gen flags]          same as query
  msgcli stream "<prompt>" [gen flags]   stream the reply as it is generated
  msgcli usage [--json]                  show subscription rate-limit windows
  msgcli serve [serve flags]             run the local proxy daemon (see msgcli serve --help)
  msgcli serve start|stop|restart|status the daemon in the background
  msgcli run -- COMMAND [ARGS...]        start the daemon if needed, run COMMAND with
                                         ANTHROPIC_BASE_URL (and ANTHROPIC_AUTH_TOKEN) set
                                         to it; exits with COMMAND's exit code
  msgcli version | --version | -v        print the version
  msgcli help | --help | -h              print this help

Generation flags (query, stream):
  --system TEXT          system prompt
  --system-file PATH     system prompt from a file (the later of --system/--system-file wins)
  --history PATH|-       prior turns, JSON array of {"role":"user"|"assistant","content":"..."};
                         "-" reads stdin; the prompt is appended as the last user message
  --model NAME           model id (default ${DEFAULT_MODEL})
  --max-tokens N         maximum output tokens (default ${DEFAULT_MAX_TOKENS})
  --temperature F        0.0 to 1.0 (default: the API's)

Global flags:
  --debug                verbose logging to stderr (also MSGCLI_DEBUG=1)
  --proxy URL            proxy for API and OAuth traffic: http, https, socks5, socks5h;
                         user:pass@ in the URL is proxy basic auth
                         (default: HTTPS_PROXY/https_proxy, then ALL_PROXY/all_proxy)
  --out PATH             (login) where to write the credentials
  --manual               (login) paste "code#state" instead of using a local callback
  --browser-wait SECONDS (login) how long to wait for the browser before offering to
                         finish by pasting the code, as --manual does (default 30)
  --listen ADDR          (run) where a daemon it starts listens (default 127.0.0.1:8787)
  --json                 (usage) machine-readable output

Environment:
  MSGCLI_CREDENTIALS_PATH  credentials file (default ~/.config/msgcli/credentials.json)
  MSGCLI_DEBUG=1           same as --debug
  MSGCLI_API_BASE_URL, MSGCLI_OAUTH_AUTHORIZE_URL, MSGCLI_OAUTH_TOKEN_URL,
  MSGCLI_OAUTH_CLIENT_ID   upstream endpoints (for gateways and tests)
  MSGCLI_NO_BROWSER=1      do not try to open a browser during login

For your own use with your own Claude subscription; the provider's terms apply
(https://www.anthropic.com/legal/consumer-terms). See docs/msgcli.md.
`;

/** The hint printed after a usage error. */
export const HINT = 'Run "msgcli --help" for usage.';
