/**
 * Real clients from npm for the client tests: the Claude Code CLI, the MCP Inspector and,
 * for the Inspector, Node 22 (itself from npm, since the machine's Node may be older).
 * Each package is installed once with the `npm` client into a cache directory
 * (`$XDG_CACHE_HOME/mneme-test` or `~/.cache/mneme-test`), under a lock so that parallel test
 * files share one install. Only the npm registry is used (the environment's npm
 * configuration, proxy and CA settings are kept). Nothing here talks to anything else: the
 * tests point the clients at local fakes.
 *
 * @module
 */
import { exists } from "../../src/common/fs.ts";

/** Pinned versions (the tested client versions in docs/serve.md). */
export const CLAUDE_CODE_VERSION = "2.1.330";
export const INSPECTOR_VERSION = "2.12.0";
export const NODE_MAJOR = "22";

function cacheRoot(): string {
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  const home = Deno.env.get("HOME") ?? "/tmp";
  return `${xdg && xdg !== "" ? xdg : `${home}/.cache`}/mneme-test`;
}

/** Why a client cannot be installed here, or null when npm is there. */
export async function npmMissing(): Promise<string | null> {
  try {
    const out = await new Deno.Command("npm", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return out.success ? null : "npm --version failed";
  } catch {
    return "npm is not installed (the real-client tests install their clients with npm)";
  }
}

/**
 * Installs `spec` (e.g. `@anthropic-ai/claude-code@2.1.330`) into `<cache>/<dir>` unless
 * `<cache>/<dir>/node_modules/.bin/<bin>` exists; returns that bin path.
 */
export async function npmInstall(
  dir: string,
  spec: string,
  bin: string,
  opts: { pathPrefix?: string } = {},
): Promise<string> {
  const root = `${cacheRoot()}/${dir}`;
  const binPath = `${root}/node_modules/.bin/${bin}`;
  if (await exists(binPath)) return binPath;
  await Deno.mkdir(root, { recursive: true });
  const lock = await Deno.open(`${root}.lock`, { create: true, write: true });
  try {
    await lock.lock(true);
    if (await exists(binPath)) return binPath;
    const env: Record<string, string> = { CI: "true", npm_config_update_notifier: "false" };
    if (opts.pathPrefix) env.PATH = `${opts.pathPrefix}:${Deno.env.get("PATH") ?? ""}`;
    const out = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--no-save", "--prefix", root, spec],
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success || !(await exists(binPath))) {
      throw new Error(
        `npm install ${spec} failed (exit ${out.code}):\n${
          new TextDecoder().decode(out.stderr).slice(-2000)
        }`,
      );
    }
    return binPath;
  } finally {
    await lock.unlock().catch(() => {});
    lock.close();
  }
}

/** The Claude Code CLI (a native binary in these versions: no Node needed). */
export function claudeCode(): Promise<string> {
  return npmInstall(
    `claude-code-${CLAUDE_CODE_VERSION}`,
    `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`,
    "claude",
  );
}

/** Directory holding a `node` of {@link NODE_MAJOR} (from the npm package `node`). */
export async function node22Bin(): Promise<string> {
  const node = await npmInstall(`node-${NODE_MAJOR}`, `node@${NODE_MAJOR}`, "node");
  return node.slice(0, node.lastIndexOf("/"));
}

/** The MCP Inspector launcher and the PATH entry of the Node it needs. */
export async function inspector(): Promise<{ bin: string; nodeBin: string }> {
  const nodeBin = await node22Bin();
  const bin = await npmInstall(
    `mcp-inspector-${INSPECTOR_VERSION}`,
    `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`,
    "mcp-inspector",
    { pathPrefix: nodeBin },
  );
  return { bin, nodeBin };
}

/**
 * A test of a real npm client: skipped with a message when npm is missing; the clients'
 * child processes are awaited by the test itself, so the resource sanitizers are off.
 */
export function clientTest(name: string, missing: string | null, fn: () => Promise<void>): void {
  Deno.test({ name, ignore: missing !== null, sanitizeResources: false, sanitizeOps: false, fn });
}
