/**
 * Reading the process environment under Deno's permissions.
 * @module
 */

/** Reads a variable; one outside the granted `--allow-env` list reads as unset. */
export function safeEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
