/** The MemoryService contract on the pglite backend (see contract.ts and fixtures.ts). */
import { memoryContract } from "./contract.ts";
import { pgliteBackend } from "./fixtures.ts";

memoryContract("pglite", pgliteBackend);

Deno.test("import: a timestamp without a zone is UTC, whatever the daemon's TZ", async () => {
  const code = `
    import { validateImport } from "${new URL("../../src/memory/validate.ts", import.meta.url)}";
    const [v] = validateImport([{ content: "x", created_at: "2024-01-01T10:00:00" }]);
    console.log(v.createdAt.toISOString());`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    env: { TZ: "America/New_York" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (text !== "2024-01-01T10:00:00.000Z") {
    throw new Error(`got ${text} ${new TextDecoder().decode(out.stderr)}`);
  }
});
