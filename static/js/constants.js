// Values shared by the screens (they mirror src/memory/types.ts and validate.ts).

/** Memory types in display order. */
export const TYPES = ["fact", "rule", "decision", "feedback", "context", "bootstrap"];
/** Scopes. */
export const SCOPES = ["global", "project"];
