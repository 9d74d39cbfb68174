// The dashboard. API routes are served by Stowage's own server (server/http), so Next
// only renders pages. Type checking runs in `npm test` (tsc), not in the build.
/** @type {import('next').NextConfig} */
const config = {
  reactStrictMode: true,
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: true },
  turbopack: { root: import.meta.dirname },
};

export default config;
