// @ts-check
import js from "@eslint/js";
import importX from "eslint-plugin-import-x";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Folders may only import "downwards": app → pages → components → api → lib. */
const layerZones = [
  { target: "./src/lib", from: ["./src/api", "./src/components", "./src/pages", "./src/app"] },
  { target: "./src/api", from: ["./src/components", "./src/pages", "./src/app"] },
  { target: "./src/components", from: ["./src/pages", "./src/app"] },
  { target: "./src/pages", from: ["./src/app"] },
  // Screens do not import each other; what two screens share belongs in components/ or api/.
  ...["auth", "home", "account", "not-found", "setup", "keys", "connectors", "projects", "test-center"].map((page) => ({
    target: `./src/pages/${page}`,
    from: "./src/pages",
    except: [`./${page}`],
  })),
  { target: ["./src/app", "./src/pages", "./src/components", "./src/api", "./src/lib"], from: "./src/testing" },
];

export default tseslint.config(
  { ignores: ["dist", "node_modules", "playwright-report", "test-results", "src/api/schema.d.ts"] },

  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: false }],
    },
  },

  {
    files: ["src/**/*.{ts,tsx}"],
    languageOptions: { globals: globals.browser },
    plugins: { "react-hooks": reactHooks, "import-x": importX },
    settings: {
      // Without these two, import-x skips .ts/.tsx files when it follows imports, and no-cycle sees nothing.
      "import-x/extensions": [".ts", ".tsx", ".js", ".mjs"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
      "import-x/resolver-next": [importX.createNodeResolver({ extensions: [".ts", ".tsx", ".js", ".mjs", ".json"] })],
    },
    rules: {
      ...reactHooks.configs.flat["recommended-latest"].rules,
      "import-x/no-cycle": "error",
      "import-x/no-self-import": "error",
      "import-x/no-duplicates": "error",
      "import-x/no-restricted-paths": ["error", { zones: layerZones }],
      "no-restricted-syntax": [
        "error",
        {
          selector: "JSXAttribute[name.name='dangerouslySetInnerHTML'], Property[key.name='dangerouslySetInnerHTML']",
          message: "Render untrusted HTML only through src/components/SafeHtml.tsx.",
        },
      ],
      "no-restricted-globals": [
        "error",
        { name: "localStorage", message: "The token and other session data never go to localStorage." },
      ],
      "no-restricted-properties": [
        "error",
        {
          object: "window",
          property: "localStorage",
          message: "The token and other session data never go to localStorage.",
        },
        {
          object: "globalThis",
          property: "localStorage",
          message: "The token and other session data never go to localStorage.",
        },
      ],
    },
  },
  {
    // The one place that may set innerHTML, after DOMPurify.
    files: ["src/components/SafeHtml.tsx"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    // Tests read localStorage to prove that nothing is written there, and may import the test kit.
    files: ["src/**/*.test.{ts,tsx}", "src/testing/**"],
    rules: {
      "no-restricted-properties": "off",
      "no-restricted-globals": "off",
      "import-x/no-restricted-paths": "off",
    },
  },

  {
    files: ["*.config.{ts,js}", "e2e/**/*.ts"],
    languageOptions: { globals: globals.node },
  },
  {
    files: ["**/*.js"],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
