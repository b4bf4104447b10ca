/**
 * The benchmarks' flags: `node:util`'s `parseArgs`, strict, with what each bench used to repeat
 * on top: `--help` printing the usage line, an unknown or malformed flag refused with the usage
 * (exit 2), and numbers checked with an error naming the flag.
 * @module
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";

/** A bench's parsed flags, typed from its options. */
export type BenchValues<T extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: T; strict: true; allowPositionals: false }>
>["values"];

/**
 * Parse `args` (default `Deno.args`) against `options`. `usage` is the bench's command line
 * (`deno task bench:mcp [--runs N]`): `--help` prints it and exits 0; a flag it does not take
 * prints the error and the usage, and exits 2.
 */
export function benchArgs<T extends ParseArgsOptionsConfig>(
  usage: string,
  options: T,
  args: string[] = Deno.args,
): BenchValues<T> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(`usage: ${usage}`);
    Deno.exit(0);
  }
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    console.error(`${(err as Error).message}\nusage: ${usage}`);
    Deno.exit(2);
  }
}

/**
 * The integer value of `--flag` (`raw`), at least `min`; anything else is refused with an error
 * naming the flag (exit 2).
 */
export function intFlag(flag: string, raw: string | undefined, min = 1): number {
  const n = Number(raw);
  if (raw === undefined || raw.trim() === "" || !Number.isInteger(n) || n < min) {
    console.error(`--${flag} must be an integer of at least ${min}, not ${raw}`);
    Deno.exit(2);
  }
  return n;
}
