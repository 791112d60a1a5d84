// The npm `punycode` package (pinned), by its file path: a bare 'punycode' names Node's deprecated
// built-in module.
declare module 'punycode/punycode.js' {
  const punycode: {
    decode(input: string): string;
    encode(input: string): string;
  };
  export default punycode;
}
