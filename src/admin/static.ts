/**
 * Serves the web UI. The files of `static/` are imported as text modules, so they travel
 * with the module graph: a checkout, an installed command, a compiled executable and the
 * JSR package all serve the same UI without reading the file system (the admin daemon
 * needs no read permission for them, and `deno compile` needs no `--include`).
 * Only the files listed here are served; `/` is `index.html`. A test checks that the list
 * matches the `static/` folder.
 * @module
 */
import type { Context } from "hono";
import appCss from "../../static/app.css" with { type: "text" };
import favicon from "../../static/favicon.svg" with { type: "text" };
import indexHtml from "../../static/index.html" with { type: "text" };
import apiJs from "../../static/js/api.js" with { type: "text" };
import appJs from "../../static/js/app.js" with { type: "text" };
import constantsJs from "../../static/js/constants.js" with { type: "text" };
import uiJs from "../../static/js/ui.js" with { type: "text" };
import browseJs from "../../static/js/views/browse.js" with { type: "text" };
import createJs from "../../static/js/views/create.js" with { type: "text" };
import memoryJs from "../../static/js/views/memory.js" with { type: "text" };
import overviewJs from "../../static/js/views/overview.js" with { type: "text" };
import searchJs from "../../static/js/views/search.js" with { type: "text" };
import transferJs from "../../static/js/views/transfer.js" with { type: "text" };

/** The UI files by path relative to `static/`. */
export const UI_FILES: ReadonlyMap<string, string> = new Map([
  ["app.css", appCss],
  ["favicon.svg", favicon],
  ["index.html", indexHtml],
  ["js/api.js", apiJs],
  ["js/app.js", appJs],
  ["js/constants.js", constantsJs],
  ["js/ui.js", uiJs],
  ["js/views/browse.js", browseJs],
  ["js/views/create.js", createJs],
  ["js/views/memory.js", memoryJs],
  ["js/views/overview.js", overviewJs],
  ["js/views/search.js", searchJs],
  ["js/views/transfer.js", transferJs],
]);

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
};

/**
 * A Hono handler for GET requests outside /api, serving `files` (default {@link UI_FILES}).
 * Anything else is a JSON 404.
 */
export function staticHandler(
  files: ReadonlyMap<string, string> = UI_FILES,
): (c: Context) => Response {
  const enc = new TextEncoder();
  const bodies = new Map([...files].map(([rel, text]) => [rel, enc.encode(text)]));
  return (c) => {
    let path: string;
    try {
      path = decodeURIComponent(c.req.path);
    } catch {
      return c.json({ error: "not found" }, 404);
    }
    if (path.endsWith("/")) path += "index.html";
    const rel = path.replace(/^\/+/, "");
    const body = bodies.get(rel);
    if (!body) return c.json({ error: `no route GET ${c.req.path}` }, 404);
    const ext = rel.split(".").pop() ?? "";
    return new Response(body as BodyInit, {
      headers: {
        "content-type": TYPES[ext] ?? "application/octet-stream",
        "cache-control": "no-cache",
      },
    });
  };
}
