/** A service's own page (/services/:name): being built (issue 41). */
export function Service() {
  return <h1>Service</h1>;
}
