/**
 * Entry point of `memcli`, the host CLI of the memory service (`deno task memcli`).
 * @module
 */
import { main } from "../memcli/main.ts";

Deno.exit(await main(Deno.args));
