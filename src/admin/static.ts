/**
 * Serves the web UI from `static/`, located next to this module (so it works from a
 * checkout, an installed copy and a compiled binary with `--include static`).
 * Only files that exist under static/ are served; `/` is `index.html`.
 * @module
 */
import type { Context } from "hono";

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  json: "application/json",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  webmanifest: "application/manifest+json",
  txt: "text/plain; charset=utf-8",
};

const ROOT = new URL("../../static/", import.meta.url);

async function load(root: URL, rel: string): Promise<Uint8Array | null> {
  const url = new URL(rel, root);
  if (!url.href.startsWith(root.href)) return null;
  try {
    if (url.protocol === "file:") return await Deno.readFile(url);
    const res = await fetch(url);
    return res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
  } catch {
    return null;
  }
}

/**
 * A Hono handler for GET requests outside /api, serving files under `root` (default the
 * static/ folder). Files found are cached; misses are not, so that requests for arbitrary
 * paths cannot grow the cache without bound.
 */
export function staticHandler(root: URL = ROOT): (c: Context) => Promise<Response> {
  const cache = new Map<string, Uint8Array>();
  return async (c) => {
    let path: string;
    try {
      path = decodeURIComponent(c.req.path);
    } catch {
      return c.json({ error: "not found" }, 404);
    }
    if (path.endsWith("/")) path += "index.html";
    const rel = path.replace(/^\/+/, "");
    if (rel.split("/").some((s) => s === ".." || s.startsWith(".")) || rel.includes("\\")) {
      return c.json({ error: "not found" }, 404);
    }
    let body: Uint8Array | null | undefined = cache.get(rel);
    if (body === undefined) {
      body = await load(root, rel);
      if (body) cache.set(rel, body);
    }
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
