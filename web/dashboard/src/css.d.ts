// Style sheets are imported for esbuild, which bundles them into the app's CSS file.
declare module '*.css';
