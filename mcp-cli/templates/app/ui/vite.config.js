// Builds the view into one self-contained `dist/index.html`: hosts render a single HTML
// document in a sandboxed iframe, so scripts and styles are inlined (vite-plugin-singlefile,
// as the official ext-apps examples do).
import { defineConfig } from "vite";
import { viteSingleFile } from "vite-plugin-singlefile";

export default defineConfig({
  plugins: [viteSingleFile()],
  build: { outDir: "dist", emptyOutDir: true },
});
