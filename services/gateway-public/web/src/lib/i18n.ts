export type Messages = Record<string, string>;

/** Texts of the page's language, embedded by the server as JSON (never executed). */
export function readMessages(doc: Document): Messages {
  const el = doc.getElementById('messages');
  try {
    const parsed: unknown = JSON.parse(el?.textContent ?? '{}');
    return typeof parsed === 'object' && parsed !== null ? (parsed as Messages) : {};
  } catch {
    return {};
  }
}

/** `t('pay', {amount})`: the message with `{name}` placeholders filled; the key when missing. */
export function translator(messages: Messages): (key: string, vars?: Record<string, string | number>) => string {
  return (key, vars = {}) =>
    (messages[key] ?? key).replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}
