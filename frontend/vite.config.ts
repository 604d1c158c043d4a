import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// Where `npm run dev` and `npm run preview` forward /api. Default: Django's runserver/gunicorn on 8000.
const apiProxyTarget = process.env.PARLEY_API_PROXY ?? "http://127.0.0.1:8000";
const proxy = { "/api": { target: apiProxyTarget, changeOrigin: false } };

export default defineConfig({
  plugins: [react()],
  server: { port: 5173, strictPort: true, proxy },
  preview: { port: 4173, strictPort: true, proxy },
  build: {
    outDir: "dist",
    sourcemap: true,
    rolldownOptions: {
      output: {
        // Libraries change less often than our code: separate chunks stay cached across deploys.
        codeSplitting: {
          groups: [
            { name: "react", test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/ },
            { name: "mantine", test: /node_modules[\\/]@mantine[\\/]/ },
            { name: "vendor", test: /node_modules[\\/]/ },
          ],
        },
      },
    },
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/testing/setup-tests.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    restoreMocks: true,
    // Mantine ships CSS; jsdom cannot use it and parsing it only slows tests down.
    css: false,
  },
});
