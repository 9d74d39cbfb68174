// The dashboard's look: Mantine's defaults, tightened for a dense admin console.
// System fonts only (nothing is fetched from a CDN).
import { createTheme } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'indigo',
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
