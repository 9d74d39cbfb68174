// The dashboard's look: Mantine's defaults, tightened for a dense admin console.
// System fonts only (nothing is fetched from a CDN). Text on tinted and outlined
// badges and alerts is darkened in app/globals.css (Mantine's shade 6 on a light tint
// reads at about 1.7:1 for yellow).
import { createTheme } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 7, dark: 8 },
  defaultRadius: 'sm',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
  fontFamilyMonospace: 'ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, Consolas, monospace',
  headings: { fontWeight: '600' },
  components: {
    Table: { defaultProps: { verticalSpacing: 6, horizontalSpacing: 'xs', fz: 'sm' } },
    Badge: { defaultProps: { radius: 'sm' } },
  },
});
