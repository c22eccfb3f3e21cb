/**
 * API version the sandbox speaks and stamps on events: the one pinned by the provider SDK version
 * our platform uses (a unit test keeps the two in step).
 */
export const API_VERSION = '2026-10-28.endive';
