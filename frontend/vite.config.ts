import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// Where `npm run dev` and `npm run preview` forward /api. Default: Django's runserver/gunicorn on 8000, and the
// live-update streams (/api/stream/, listed first so it wins) to uvicorn on 8001.
const apiProxyTarget = process.env.PARLEY_API_PROXY ?? "http://127.0.0.1:8000";
const streamProxyTarget = process.env.PARLEY_STREAM_PROXY ?? "http://127.0.0.1:8001";
const proxy = {
  "/api/stream/": { target: streamProxyTarget, changeOrigin: false },
  "/api": { target: apiProxyTarget, changeOrigin: false },
};

/**
 * Matches the modules of the named packages. A name is a regular-expression fragment (`@codemirror/[a-z-]+`); its
 * `/` stands for either path separator.
 */
function packages(...names: string[]): RegExp {
  const alternatives = names.map((name) => name.replace("/", "[\\\\/]"));
  return new RegExp(`node_modules[\\\\/](?:${alternatives.join("|")})[\\\\/]`);
}

/**
 * Libraries change less often than our code, so they get chunks of their own that stay cached across deploys.
 * Higher priority claims a module first; each group also takes the dependencies of what it matches (Rolldown's
 * default), which is why React and Mantine come first: the heavy libraries of the lazy screens depend on them.
 * The heavy ones (CodeMirror, React Flow + dagre, charts, Markdown, the YAML parser) are named so that only
 * the screens that import them load them; `vendor` takes only what the first screen needs.
 */
const libraryChunks = [
  // use-sync-external-store is React's own shim; both the charts and the graph use it.
  {
    name: "react",
    priority: 60,
    test: packages("react", "react-dom", "react-router", "scheduler", "use-sync-external-store"),
  },
  {
    name: "mantine",
    priority: 50,
    test: packages("@mantine/core", "@mantine/hooks", "@mantine/form", "@mantine/notifications"),
  },
  // The two d3 modules that both the charts and the workflow graph use: small, shared, and neither pulls in the other.
  { name: "d3", priority: 40, test: packages("d3-color", "d3-interpolate") },
  { name: "codemirror", priority: 30, test: packages("@codemirror/[a-z-]+", "@lezer/[a-z-]+") },
  { name: "graph", priority: 30, test: packages("@xyflow/[a-z-]+", "@dagrejs/[a-z-]+", "html-to-image") },
  { name: "charts", priority: 30, test: packages("@mantine/charts", "recharts") },
  { name: "markdown", priority: 30, test: packages("react-markdown", "remark-gfm") },
  { name: "yaml", priority: 30, test: packages("yaml") },
  // Whatever else the first screen needs (TanStack Query, openapi-fetch); the rest goes with the screen using it.
  { name: "vendor", priority: 10, test: /node_modules[\\/]/, tags: ["$initial" as const] },
];

export default defineConfig({
  plugins: [react()],
  server: { port: 5173, strictPort: true, proxy },
  preview: { port: 4173, strictPort: true, proxy },
  build: {
    outDir: "dist",
    sourcemap: true,
    rolldownOptions: { output: { codeSplitting: { groups: libraryChunks } } },
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/testing/setup-tests.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    restoreMocks: true,
    // Whole screens render in jsdom, lazy routes included; on a loaded 2-core machine one can take seconds.
    testTimeout: 20_000,
    // Mantine ships CSS; jsdom cannot use it and parsing it only slows tests down.
    css: false,
  },
});
