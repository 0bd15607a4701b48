/** The Files page: being built (issue 41); the navigation already leads here. */
export function Files() {
  return <h1>Files</h1>;
}
