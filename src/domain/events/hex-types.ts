/** Hex values as the ledger holds them: lowercase 0x-hex (the schemas' patterns say how long). */
export type Hex = `0x${string}`;
export type Address = Hex;
export type OrderUid = Hex;
