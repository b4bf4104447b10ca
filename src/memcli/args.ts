/**
 * Flag parsing for `memcli`: `node:util` `parseArgs` in strict mode per command, with
 * errors that name the flag. A {@link UsageError} makes `memcli` print the message and a
 * usage hint on stderr and exit 1 before any network call.
 * @module
 */
import { parseArgs } from "node:util";
import { errorMessage, UsageError } from "../common/errors.ts";

/** Flags of one command (parseArgs option descriptors). */
export type FlagSpec = Record<
  string,
  { type: "string" | "boolean"; short?: string; multiple?: boolean }
>;

/** Parsed flags and positionals. */
export interface Parsed {
  /** Flag values by long name. */
  values: Record<string, string | boolean | string[] | undefined>;
  /** Positional arguments. */
  positionals: string[];
  /** True when `--help`/`-h` was given. */
  help: boolean;
}

function explain(err: unknown, flags: FlagSpec): string {
  const code = (err as { code?: string }).code;
  const msg = errorMessage(err);
  const quoted = msg.match(/'([^']+)'/)?.[1];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && quoted) {
    const given = quoted.replace(/^-+/, "").split("=")[0];
    const near = given.length > 1 ? closest(given, [...Object.keys(flags), "help"]) : null;
    return near ? `unknown flag ${quoted} (did you mean --${near}?)` : `unknown flag ${quoted}`;
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && quoted) {
    return `unexpected argument '${quoted}'`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && quoted) {
    const flag = quoted.split(" ")[0].replace(/,$/, "");
    const long = quoted.match(/--[\w-]+/)?.[0] ?? flag;
    if (/does not take an argument/.test(msg)) return `${long} does not take a value`;
    if (/ambiguous/.test(msg)) {
      return `${long} needs a value (got a flag-like value; use ${long}=VALUE)`;
    }
    return `${long} needs a value`;
  }
  return msg;
}

/** Edit distance of two short strings (case-sensitive). */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/** The closest of `names` to `given` (case-insensitive, edit distance ≤ 2 or a third), or null. */
export function closest(given: string, names: Iterable<string>): string | null {
  const g = given.toLowerCase();
  let best: string | null = null;
  let bestD = Infinity;
  for (const n of names) {
    const d = distance(g, n.toLowerCase());
    if (d < bestD) [best, bestD] = [n, d];
  }
  const max = Math.max(2, Math.floor(given.length / 3));
  return best !== null && bestD <= max ? best : null;
}

/** Parse `args` strictly; `maxPositionals` of `Infinity` allows any number. */
export function parseFlags(
  command: string,
  args: string[],
  flags: FlagSpec,
  maxPositionals = 0,
): Parsed {
  let res;
  try {
    res = parseArgs({
      args,
      options: { ...flags, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: maxPositionals > 0,
    });
  } catch (err) {
    throw new UsageError(explain(err, flags), command);
  }
  const help = res.values.help === true;
  if (!help && res.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument '${res.positionals[maxPositionals]}'`, command);
  }
  return { values: res.values as Parsed["values"], positionals: res.positionals, help };
}

/** An optional integer flag within bounds, or a {@link UsageError} naming it. */
export function intFlag(
  command: string,
  flag: string,
  value: unknown,
  min: number,
  max: number,
): number | undefined {
  return boundedFlag(command, flag, value, min, max, true);
}

/** An optional number flag within bounds, or a {@link UsageError} naming it. */
export function numberFlag(
  command: string,
  flag: string,
  value: unknown,
  min: number,
  max: number,
): number | undefined {
  return boundedFlag(command, flag, value, min, max, false);
}

function boundedFlag(
  command: string,
  flag: string,
  value: unknown,
  min: number,
  max: number,
  integer: boolean,
): number | undefined {
  if (value === undefined) return undefined;
  const s = String(value).trim();
  const n = Number(s);
  const ok = integer ? /^\d+$/.test(s) : s !== "" && Number.isFinite(n);
  if (!ok || n < min || n > max) {
    throw new UsageError(
      `--${flag}: must be ${integer ? "an integer" : "a number"} between ${min} and ${max}`,
      command,
    );
  }
  return n;
}

/** An optional flag restricted to a set of values, or a {@link UsageError} naming it. */
export function choiceFlag<T extends string>(
  command: string,
  flag: string,
  value: unknown,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  const s = String(value).trim().toLowerCase();
  if (!(choices as readonly string[]).includes(s)) {
    throw new UsageError(`--${flag}: must be one of ${choices.join(", ")}`, command);
  }
  return s as T;
}

/** An optional non-empty string flag. */
export function stringFlag(command: string, flag: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const s = String(value).trim();
  if (!s) throw new UsageError(`--${flag}: must not be empty`, command);
  return s;
}
