/** The one version constant of the project; `deno.json` carries the same value (a test checks it). */
export const VERSION = "0.6.1";
