export const RUN_DIR: string;
export function newSystemKey(): string;
export function localSystemKey(): string;
