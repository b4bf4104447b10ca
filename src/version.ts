/**
 * The project's version. It lives in one place, the `version` field of `deno.json`, which
 * is imported here (JSON imports travel with the module graph, so installed commands,
 * compiled executables and the JSR package all carry it).
 * @module
 */
import denoJson from "../deno.json" with { type: "json" };

/** The version of Mneme, from `deno.json`. */
export const VERSION: string = denoJson.version;
