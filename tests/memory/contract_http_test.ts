/** The MemoryService contract on the http backend (see contract.ts and fixtures.ts). */
import { memoryContract } from "./contract.ts";
import { httpBackend } from "./fixtures.ts";

memoryContract("http", httpBackend);
