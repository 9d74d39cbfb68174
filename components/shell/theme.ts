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
    // A crumb is often an object's name, one long word: it wraps anywhere rather than push
    // the page sideways on a phone (Mantine's crumbs never wrap, and it sets each crumb's style).
    Breadcrumbs: { styles: { breadcrumb: { whiteSpace: 'normal', overflowWrap: 'anywhere', minWidth: 0 } } },
  },
});
