/**
 * Reading the process environment under Deno's permissions.
 * @module
 */

/**
 * Reads a variable; one outside the granted `--allow-env` list reads as unset, without a
 * permission prompt on a terminal (the permission is queried first; a prompt would ask the
 * user about a variable the program can do without).
 */
export function safeEnv(name: string): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
      return undefined;
    }
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}
