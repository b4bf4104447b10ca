/**
 * Where the files that ship with Mneme's modules are: shared by the code that reads them and
 * the permission table that grants exactly their reading (src/permissions.ts).
 * @module
 */
import { fileURLToPath } from "node:url";

/** The builtin word vectors' file, relative to the project's root. */
export const WORD_VECTORS_FILE = "models/glove-100d-50k.bin";

/**
 * The builtin word vectors ({@link WORD_VECTORS_FILE}, read by src/embed/words.ts on the first
 * search). A `file:` URL when the modules run from a checkout or an installed copy, and inside
 * a compiled executable (which embeds the file: `deno task compile` includes it).
 */
export const WORD_VECTORS_URL = new URL(`../../${WORD_VECTORS_FILE}`, import.meta.url);

/** The word vectors' path, to grant its reading; none when the modules are not files. */
export function wordVectorsFiles(url: URL = WORD_VECTORS_URL): string[] {
  return url.protocol === "file:" ? [fileURLToPath(url)] : [];
}
