/**
 * The values the web UI shares with the service: the UI's `js/constants.js` is generated
 * from this module's exports when the admin server starts (see `./static.ts`), and
 * `deno task check` type-checks `static/js/` against this module (the import map of
 * `deno.json` maps `static/js/constants.js` here). Every export must be plain JSON data.
 * @module
 */
export { MEMORY_TYPES, SCOPES } from "../memory/types.ts";
export {
  BULK_DELETE_MAX,
  DEFAULT_LIST_LIMIT,
  EXPORT_MAX,
  MAX_CONTENT,
  MAX_LIST_LIMIT,
  MAX_PROJECT,
  MAX_QUERY,
  MAX_SEARCH_LIMIT,
  MAX_WEIGHT,
  MIN_WEIGHT,
} from "../memory/validate.ts";
