/** The MemoryService contract on the pglite backend (see contract.ts and fixtures.ts). */
import { memoryContract } from "./contract.ts";
import { pgliteBackend } from "./fixtures.ts";

memoryContract("pglite", pgliteBackend);
