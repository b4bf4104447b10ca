/**
 * The real Claude Code CLI from npm (`@anthropic-ai/claude-code`, pinned), installed once
 * into a cache folder by the tests that drive it: `$XDG_CACHE_HOME` (else `~/.cache`)
 * `/mneme-test/claude-code-<version>`. Needs `npm` and the npm registry (as `.ci/run` has).
 * Concurrent installs do not clash: each installs into its own folder and renames it into
 * place; the loser uses the winner's.
 */
import { join } from "node:path";

/** The pinned Claude Code version. */
export const CLAUDE_CODE_VERSION = "2.1.330";

async function works(bin: string): Promise<boolean> {
  try {
    const out = await new Deno.Command(bin, {
      args: ["--version"],
      stdout: "piped",
      stderr: "null",
    })
      .output();
    return out.success && new TextDecoder().decode(out.stdout).includes(CLAUDE_CODE_VERSION);
  } catch {
    return false;
  }
}

/** Candidates for the executable inside an install folder (the bin link, the native package). */
function candidates(dir: string): string[] {
  const arch = Deno.build.arch === "aarch64" ? "arm64" : "x64";
  const os = Deno.build.os === "darwin"
    ? "darwin"
    : Deno.build.os === "windows"
    ? "win32"
    : "linux";
  return [
    join(dir, "node_modules", ".bin", "claude"),
    join(dir, "node_modules", "@anthropic-ai", `claude-code-${os}-${arch}`, "claude"),
  ];
}

/** The path of the `claude` executable, installing it first when needed. */
export async function claudeCodeBin(): Promise<string> {
  const cache = Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") ?? "/tmp", ".cache");
  const dir = join(cache, "mneme-test", `claude-code-${CLAUDE_CODE_VERSION}`);
  for (const c of candidates(dir)) if (await works(c)) return c;
  const tmp = `${dir}.tmp-${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  await Deno.mkdir(tmp, { recursive: true });
  const out = await new Deno.Command("npm", {
    args: [
      "install",
      "--no-audit",
      "--no-fund",
      "--no-save",
      "--prefix",
      tmp,
      `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
    throw new Error(
      `npm install @anthropic-ai/claude-code@${CLAUDE_CODE_VERSION} failed: ` +
        new TextDecoder().decode(out.stderr),
    );
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  try {
    await Deno.rename(tmp, dir);
  } catch {
    await Deno.remove(tmp, { recursive: true }).catch(() => {}); // another run won
  }
  for (const c of candidates(dir)) if (await works(c)) return c;
  throw new Error(`Claude Code installed in ${dir}, but no working claude executable found`);
}
