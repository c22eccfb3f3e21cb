/**
 * A site's brand colour as the hosted checkout applies it, in one place for the hosted page and
 * the dashboard's live preview of it (both bundle this file; it uses nothing but the language).
 */

/** `#rgb` / `#rrggbb` only: anything else is ignored (it ends up in a CSS custom property). */
export function hexColor(value: string | undefined): string | undefined {
  if (!value || !/^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(value)) return undefined;
  return value.length === 4 ? `#${[...value.slice(1)].map((c) => c + c).join('')}` : value;
}

function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** Text colour with the better WCAG contrast on a brand colour. */
export function textOn(hex: string): '#000000' | '#ffffff' {
  const l = luminance(hex);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

/** Contrast ratio of a colour against white (for deciding whether it can colour text on white). */
export function contrastOnWhite(hex: string): number {
  return 1.05 / (luminance(hex) + 0.05);
}
