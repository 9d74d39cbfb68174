// The dashboard's look: Mantine's defaults, tightened for a dense admin console.
// System fonts only (nothing is fetched from a CDN). Text on tinted and outlined
// badges, alerts and buttons uses the dark end of each palette, so it keeps a contrast
// of at least 4.5:1 (Mantine's default shade 6 on a light tint does not: yellow and
// orange badges read at about 1.7:1).
import { createTheme, defaultVariantColorsResolver, parseThemeColor, type VariantColorsResolver } from '@mantine/core';

const readableVariants: VariantColorsResolver = (input) => {
  const colors = defaultVariantColorsResolver(input);
  if (input.variant !== 'light' && input.variant !== 'outline' && input.variant !== 'subtle' && input.variant !== 'dot') return colors;
  const parsed = parseThemeColor({ color: input.color || input.theme.primaryColor, theme: input.theme });
  if (!parsed.isThemeColor || parsed.shade !== undefined) return colors;
  const text = `var(--mantine-color-${parsed.color}-9)`;
  return { ...colors, color: text, border: input.variant === 'outline' ? `1px solid var(--mantine-color-${parsed.color}-8)` : colors.border };
};

export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 7, dark: 5 },
  defaultRadius: 'sm',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, Consolas, monospace',
  headings: { fontWeight: '600' },
  variantColorResolver: readableVariants,
  components: {
    Table: { defaultProps: { verticalSpacing: 6, horizontalSpacing: 'xs', fz: 'sm' } },
    Badge: { defaultProps: { radius: 'sm' } },
  },
});
