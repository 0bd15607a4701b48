// Stylesheets imported for their side effect (Bun bundles them next to the script that imports them).
declare module '*.css';
