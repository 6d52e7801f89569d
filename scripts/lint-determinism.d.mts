/** The folders of src/ that scripts/lint-determinism.mjs lets touch the real world. */
export declare const EXEMPT_FOLDERS: readonly string[];
/** The single files (relative to src/) it exempts. */
export declare const EXEMPT_FILE_PATHS: readonly string[];
