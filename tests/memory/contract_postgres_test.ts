/** The MemoryService contract on the postgres backend (see contract.ts and fixtures.ts). */
import { memoryContract } from "./contract.ts";
import { postgresBackend } from "./fixtures.ts";

memoryContract("postgres", postgresBackend);
