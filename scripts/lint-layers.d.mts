/** The layer map of scripts/lint-layers.mjs: layer (a folder of src/, "" for its top files) -> what it may import. */
export declare const LAYERS: Readonly<Record<string, { readonly values: readonly string[]; readonly types?: readonly string[] }>>;
