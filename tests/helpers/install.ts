/**
 * Install one of the programs as `deno task install` does (`deno install --global` with its
 * task's permissions plus what the configuration needs), into a temporary root, for tests
 * and benchmarks that need the installed command on PATH.
 */
import { join } from "node:path";
import { entrypoints, flagsFor } from "../../tasks/entrypoints.ts";
import { ROOT } from "../helpers.ts";

/**
 * Deno's cache (also when HOME points elsewhere) and what Deno and npm need to reach the
 * registry through a TLS-inspecting proxy.
 */
export function toolEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (
    const k of [
      "XDG_CACHE_HOME",
      "DENO_CERT",
      "DENO_TLS_CA_STORE",
      "NODE_EXTRA_CA_CERTS",
      "SSL_CERT_FILE",
      "SSL_CERT_DIR",
      "HTTPS_PROXY",
      "https_proxy",
      "NO_PROXY",
      "no_proxy",
    ]
  ) {
    const v = Deno.env.get(k);
    if (v) env[k] = v;
  }
  env.DENO_DIR = Deno.env.get("DENO_DIR") ||
    join(Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") ?? "/tmp", ".cache"), "deno");
  return env;
}

/**
 * Install the program `name` (e.g. `memcli`) for the configuration `config` into `root`;
 * returns the `bin` folder and a PATH with it first (and Deno's folder).
 */
export async function installCommand(
  name: string,
  root: string,
  config: Record<string, string>,
): Promise<{ bin: string; PATH: string }> {
  const p = entrypoints().find((e) => e.name === name);
  if (!p) throw new Error(`no program ${name}`);
  const flags = flagsFor(p, (n) => config[n]);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "install",
      "--global",
      "--force",
      "--quiet",
      "--config",
      `${ROOT}deno.json`,
      "--name",
      name,
      "--root",
      root,
      ...flags,
      `${ROOT}${p.entry}`,
    ],
    cwd: ROOT,
    env: { ...toolEnv(), ...config, PATH: Deno.env.get("PATH") ?? "" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno install ${name} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  const bin = join(root, "bin");
  const denoDir = Deno.execPath().replace(/\/[^/]+$/, "");
  return { bin, PATH: `${bin}:${denoDir}:${Deno.env.get("PATH") ?? ""}` };
}
