/**
 * The benchmarks' flags: `node:util`'s `parseArgs`, strict, with what each bench used to repeat
 * on top: `--help` printing the usage line (exit 0), an unknown or malformed flag refused in one
 * line naming it (exit 2, no stack trace), and numbers checked with an error naming the flag.
 * @module
 */
import { fileURLToPath } from "node:url";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";

/**
 * The default of the LoCoMo tasks' `--data`: `../shared/data/locomo-dev` from the repository's
 * root (beside the checkout), whatever the working directory. The product never reads it.
 */
export const LOCOMO_DEV: string = fileURLToPath(
  new URL("../../../shared/data/locomo-dev", import.meta.url),
);

/** A bench's parsed flags, typed from its options. */
export type BenchValues<T extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: T; strict: true; allowPositionals: false }>
>["values"];

/**
 * Parse `args` (default `Deno.args`) against `options`. `usage` is the bench's command line
 * (`deno task bench:mcp [--runs N]`): `--help` (or `-h`) prints it and exits 0; a flag it does not
 * take, a flag without its value or a stray argument prints one line naming it, and exits 2.
 */
export function benchArgs<T extends ParseArgsOptionsConfig>(
  usage: string,
  options: T,
  args: string[] = Deno.args,
): BenchValues<T> {
  return benchParse(usage, options, args, 0).values;
}

/** {@link benchArgs} for a bench that also takes up to `max` positional arguments. */
export function benchParse<T extends ParseArgsOptionsConfig>(
  usage: string,
  options: T,
  args: string[],
  max: number,
): { values: BenchValues<T>; positionals: string[] } {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(`usage: ${usage}`);
    Deno.exit(0);
  }
  const name = usage.match(/^deno task (\S+)/)?.[1] ?? "bench";
  try {
    const { values, positionals } = parseArgs({
      args,
      options,
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length > max) {
      throw new Error(`Unexpected argument '${positionals[max]}'`);
    }
    return { values: values as BenchValues<T>, positionals };
  } catch (err) {
    // node:util's message, first sentence: "Unknown option '--foo'", "Option '--data <value>'
    // argument missing".
    const what = (err as Error).message.split(". ")[0];
    console.error(`${name}: ${what} (--help prints the usage)`);
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
