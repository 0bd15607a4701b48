/** The API's lower-case messages ("global maintenance on") as a sentence: a capital, and a full stop unless it ends with one. */
export function sentence(text: string): string {
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
