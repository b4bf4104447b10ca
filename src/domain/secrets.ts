/**
 * Credentials in text, found before anything is stored. The provider-specific rules are
 * secretlint's recommended preset (`@secretlint/secretlint-rule-preset-recommend`, MIT, one
 * bundled file without dependencies, no network): AWS, GCP, npm, Slack, basic auth in URLs,
 * OpenAI, Anthropic, Groq, Hugging Face, Linear, Notion, private keys, SendGrid, Shopify,
 * Stripe, GitHub, GitLab, Grafana, 1Password, database connection strings, Vault, Vercel,
 * Databricks, Docker, Figma, Cloudflare, Tailscale. Its rules are run directly (each rule's
 * `create(context).file(source)`), not through `@secretlint/core`, which needs the whole
 * environment to read (its `debug` dependency lists every variable).
 *
 * Three checks of Mneme's cover what a preset of provider formats cannot know:
 * - a value assigned to a secret-like name (`password=…`, `API_KEY: …`, `"token": "…"`);
 * - a password in any URL's userinfo (`scheme://user:pass@host`);
 * - a high-entropy string (≥ 20 characters, several character classes, ≥ 3.5 bits a character)
 *   within a few words after a secret-like name ("the token is …").
 *
 * {@link findSecrets} lists them; {@link redactSecrets} replaces each with a marker
 * (`[secret removed: <kind>]`).
 * @module
 */
import { rules } from "@secretlint/secretlint-rule-preset-recommend";

/** One secret found in a text. */
export interface SecretFinding {
  /** What it is: the secretlint rule (`secretlint:github`) or Mneme's check. */
  kind: string;
  /** Start offset (UTF-16) in the text. */
  start: number;
  /** End offset (exclusive). */
  end: number;
}

/** The marker a removed secret leaves. */
export function secretMarker(kind: string): string {
  return `[secret removed: ${kind}]`;
}

/** A marker left by {@link secretMarker}. */
export const MARKER: RegExp = /\[secret removed: [^\]]*\]/g;

interface RuleReport {
  range?: [number, number];
}
interface RuleLike {
  meta: { id: string; type?: string };
  create(
    context: Record<string, unknown>,
    options: Record<string, unknown>,
  ): { file?(source: Record<string, unknown>): unknown } | undefined;
}

/**
 * Options of the preset's rules: the AWS rule finds access key ids (`AKIA…`) only with its
 * ID scan turned on (off by default, for repositories full of example ids); a text to be
 * remembered should hold none.
 */
const RULE_OPTIONS: Record<string, Record<string, unknown>> = {
  "@secretlint/secretlint-rule-aws": { enableIDScanRule: true },
};

/** The preset's scanner rules (the comment filter is not a scanner). */
const SCANNERS = (rules as unknown as RuleLike[]).filter((r) =>
  !r.meta.id.endsWith("filter-comments")
);

/**
 * Secretlint's findings. Synchronous: the preset's scanners of text report while they run
 * (each rule's `file` handler returns nothing; only the PKCS#12 file check, which text never
 * reaches, awaits).
 */
function secretlintFindings(text: string): SecretFinding[] {
  const out: SecretFinding[] = [];
  const source = { content: text, filePath: "/capture.txt", ext: ".txt", contentType: "text" };
  for (const rule of SCANNERS) {
    const kind = `secretlint:${rule.meta.id.replace(/^@secretlint\/secretlint-rule-/, "")}`;
    const context = {
      report: (r: RuleReport) => {
        if (r.range) out.push({ kind, start: r.range[0], end: r.range[1] });
      },
      ignore: () => {},
      createTranslator: () => (id: string) => ({ message: id, data: {} }),
      sharedOptions: {},
    };
    const handler = rule.create(context, RULE_OPTIONS[rule.meta.id] ?? {});
    handler?.file?.(source);
  }
  return out;
}

/** Names a secret goes by. */
const SECRET_NAME = String
  .raw`(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|auth(?:orization)?|credential|creds?|private[_-]?key|client[_-]?secret|session[_-]?key|signing[_-]?key|bearer|psk|pre[_-]?shared[_-]?key|shared[_-]?secret|wpa2?[_-]?(?:key|psk|passphrase))`;
/** `NAME = value`, `NAME: value`, `"name": "value"`; the value a run of non-spaces. */
const ASSIGNMENT = new RegExp(
  String.raw`\b[\w.-]*${SECRET_NAME}[\w.-]*["']?\s*(?:=|:|:=|=>)\s*["']?([^\s"'<>,;]{6,})`,
  "gi",
);
/** `scheme://user:password@host` (the user may be empty: `redis://:password@host`). */
const URL_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:([^\s@/]+)@[^\s/]+/gi;
/** "the token is X", "password X": a word of a secret's name, a few words, then a value. */
const NEAR_NAME = new RegExp(
  String
    .raw`(?:\b(?:[A-Za-z0-9]+[_.-])*${SECRET_NAME}s?(?:[_.-][A-Za-z0-9]+)*\b|\bkeys?\b|\b(?:AKIA|ASIA)[A-Z0-9]{16})(?:\W+\w+){0,3}?\W+([A-Za-z0-9+/_\-=.~]{20,})`,
  "gi",
);
/**
 * "the password (for staging) is X", "pw: X": a password in prose, whatever its length. "pass"
 * and "pw" alone need "is", "=", ":" or "->" before the value: "must pass strong_migrations" is
 * the verb.
 */
const PASSWORD_PROSE =
  /\b(?:(?:pass(?:word|wd|phrase)|pwd|psk|wpa2?[\s_-]*(?:key|psk|passphrase)|wi-?fi[\s_-]*key|pre[\s_-]*shared[\s_-]*key|shared[\s_-]*secret)s?\b(?:\s+(?:for|of|on|to)\s+(?:the\s+)?[\w.-]+)?\s*(?:is|was|=|:|->)?|(?:pass|pw)s?\b(?:\s+(?:for|of|on|to)\s+(?:the\s+)?[\w.-]+)?\s*(?:is|was|=|:|->))\s*[`"']?([^\s`"']{6,})/gi;

/**
 * Formats of common providers that the preset has no rule for (or covers only in part), each
 * a published, fixed prefix: JSON Web Tokens, Google API keys (the preset's GCP rule checks
 * service-account JSON only), Stripe webhook signing secrets (its Stripe rule knows `sk_`/`rk_`
 * keys only), OpenAI project, service and admin keys without the legacy `T3BlbkFJ` infix
 * (which its rule requires), bearer tokens in an `Authorization` header, and private key
 * blocks of any length or cut off (its rule needs a complete block of 100+ characters).
 */
const PROVIDER_FORMATS: [string, RegExp][] = [
  // The preset's rules for these want today's exact length (and Anthropic's "AA" ending); a
  // token of another length with the same unambiguous prefix is still that provider's.
  ["github", /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g],
  ["anthropic", /\bsk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}/g],
  ["openai", /\bsk-[A-Za-z0-9]{8,}T3BlbkFJ[A-Za-z0-9_-]{8,}/g],
  ["stripe", /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g],
  ["npm", /\bnpm_[A-Za-z0-9]{30,}/g],
  ["gitlab", /\bglpat-[A-Za-z0-9_-]{16,}/g],
  ["slack", /\bxox[abposr]-[A-Za-z0-9-]{10,}/g],
  ["huggingface", /\bhf_[A-Za-z0-9]{30,}/g],
  ["jwt", /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g],
  ["google-api-key", /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g],
  ["stripe-webhook-secret", /\bwhsec_[A-Za-z0-9+/=]{20,}/g],
  ["openai", /\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}/g],
  ["bearer", /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/g],
  [
    "private-key",
    /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  ],
];

/** Placeholders that are not secrets. */
function placeholder(v: string): boolean {
  return /^(\$\{?[A-Z_]+\}?|<[^>]*>|\*+|x+|\.\.\.|changeme|example|redacted|null|none|true|false|undefined|your[_-].*|process\.env\..*|env\(.*)$/i
    .test(v) || /^\[secret\b/.test(v);
}

/** Shannon entropy in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/**
 * A file's path or name made of words ("keys/dev-ecdsa-p256.pem", "~/.ssh/id_ed25519.pub"):
 * a slash or a file extension, and every part between separators a short lower-case word or
 * number (a key's characters are not: "wJalrXUtnFEMI/K7MDENG/…" has long mixed-case parts).
 */
function pathLike(v: string): boolean {
  if (!v.includes("/") && !/\.[a-z][a-z0-9]{0,4}$/.test(v)) return false;
  const parts = v.split(/[/._~-]+/).filter(Boolean);
  return parts.length >= 2 && parts.every((p) => /^[a-z0-9]{1,12}$/.test(p));
}

/**
 * A name made of capitalised words joined by dots or underscores ("HayloftWeb.Telemetry",
 * "MyAppWeb.UserAuth", "Billing_Invoice.PdfRenderer"): a module or class of the code. Every part
 * is words that each start with a capital and go on in lower case (or an acronym, or a short
 * number); a generated string almost never is ("wJalrXUtnFEMI…" has a one-letter word).
 */
function camelName(v: string): boolean {
  if (!/[._]/.test(v)) return false;
  const parts = v.split(/[._]+/).filter(Boolean);
  return parts.length >= 2 &&
    parts.every((p) => /^(?:[A-Z][a-z]+|[A-Z]{2,5}(?![a-z])|\d{1,4})+$/.test(p));
}

/**
 * A string that looks generated: long, several character classes, high entropy; or a long
 * run of hex or of letters and digits (a hex token has two classes only).
 */
function looksRandom(v: string): boolean {
  if (v.length < 20) return false;
  if (/^[a-z]+(-[a-z]+)+$/i.test(v)) return false;
  if (pathLike(v) || camelName(v)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[+/_\-=.~]/].filter((r) => r.test(v)).length;
  if (classes >= 3 && entropy(v) >= 3.5) return true;
  return v.length >= 24 && /[0-9]/.test(v) && /[a-z]/i.test(v) && entropy(v) >= 3.2;
}

/** A password's value in prose: not a plain short word ("the password is stored in Vault"). */
function looksLikePassword(v: string): boolean {
  if (placeholder(v) || /^(stored|kept|in|on|at|the|a|an|set|managed|rotated|saved)$/i.test(v)) {
    return false;
  }
  return /[0-9]/.test(v) || /[^\w.-]/.test(v) || /[a-z].*[A-Z]|[A-Z].*[a-z].*[A-Z]/.test(v) ||
    v.length >= 16;
}

function mnemeFindings(text: string): SecretFinding[] {
  const out: SecretFinding[] = [];
  const at = (kind: string, m: RegExpMatchArray, v: string) => {
    const start = m.index! + m[0].lastIndexOf(v);
    out.push({ kind, start, end: start + v.length });
  };
  for (const m of text.matchAll(ASSIGNMENT)) {
    const v = m[1].replace(/[.)\]]+$/, "");
    if (placeholder(v)) continue;
    // A plain word assigned to a name ("auth: required") is not a secret; a password is.
    const pw = /pass|pwd/i.test(m[0]);
    if (!pw && !looksRandom(v) && !/\d/.test(v)) continue;
    at("assignment", m, v);
  }
  for (const m of text.matchAll(URL_PASSWORD)) {
    if (placeholder(m[1])) continue;
    const start = m.index! + m[0].indexOf(`:${m[1]}@`) + 1;
    out.push({ kind: "url-password", start, end: start + m[1].length });
  }
  // Each name, and each value that is no secret (an AWS key id), may name the next value.
  const near = new RegExp(NEAR_NAME.source, "gi");
  for (let m = near.exec(text); m; m = near.exec(text)) {
    const v = m[1].replace(/[.]+$/, "");
    if (looksRandom(v)) at("high-entropy", m, v);
    else near.lastIndex = m.index + m[0].length - m[1].length;
  }
  for (const m of text.matchAll(PASSWORD_PROSE)) {
    const v = m[1].replace(/[.,;:)\]]+$/, "");
    if (looksLikePassword(v)) at("password", m, v);
  }
  for (const [kind, re] of PROVIDER_FORMATS) {
    for (const m of text.matchAll(re)) {
      out.push({ kind, start: m.index!, end: m.index! + m[0].length });
    }
  }
  return out;
}

/** The secrets in `text`, sorted by position, overlapping findings merged (synchronous). */
export function findSecretsSync(text: string): SecretFinding[] {
  // The markers of secrets already removed are not secrets again.
  const markers = [...text.matchAll(MARKER)].map((m) => [m.index!, m.index! + m[0].length]);
  const all = [...secretlintFindings(text), ...mnemeFindings(text)]
    .filter((f) => f.end > f.start && !markers.some(([s, e]) => f.start < e && f.end > s))
    .sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretFinding[] = [];
  for (const f of all) {
    const last = merged[merged.length - 1];
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else merged.push({ ...f });
  }
  return merged;
}

/** `text` with each of `findings` replaced by {@link secretMarker}. */
export function replaceSecrets(text: string, findings: SecretFinding[]): string {
  let out = "";
  let at = 0;
  for (const f of findings) {
    out += text.slice(at, f.start) + secretMarker(f.kind);
    at = f.end;
  }
  return out + text.slice(at);
}

/** The secrets in `text`, sorted by position, overlapping findings merged. */
export function findSecrets(text: string): Promise<SecretFinding[]> {
  return Promise.resolve(findSecretsSync(text));
}

/** `text` with each secret replaced by {@link secretMarker}, and what was found. */
export function redactSecrets(
  text: string,
): Promise<{ text: string; findings: SecretFinding[] }> {
  const findings = findSecretsSync(text);
  return Promise.resolve({ text: replaceSecrets(text, findings), findings });
}

/**
 * The warning for a text that holds secrets (for `remember`, `memcli add` and import): names
 * the field and the kinds, never the secret.
 */
export function secretWarning(field: string, findings: SecretFinding[]): string {
  const kinds = [...new Set(findings.map((f) => f.kind))].join(", ");
  return `${field} holds what looks like a secret (${kinds}); secrets are not stored: ` +
    "remove it, or keep it in a secret manager and store where to find it";
}
