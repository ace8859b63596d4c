// esbuild bundles the page's stylesheets; TypeScript only needs to accept the import.
declare module "*.css";
