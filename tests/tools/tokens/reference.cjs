// Counts the tokens of every sample of the corpus with three real tokenizers, offline:
// OpenAI's cl100k_base and o200k_base (npm js-tiktoken 1.0.21, which ships the ranks) and
// Anthropic's published Claude tokenizer (npm @anthropic-ai/tokenizer 0.0.4).
// Usage, from a folder where `npm install js-tiktoken@1.0.21 @anthropic-ai/tokenizer@0.0.4` ran:
//   node reference.cjs corpus.json > corpus.new.json
// (it reads the samples of the corpus and writes them back with their counts).
const fs = require("fs");
const { getEncoding } = require("js-tiktoken");
const { countTokens } = require("@anthropic-ai/tokenizer");
const cl100k = getEncoding("cl100k_base");
const o200k = getEncoding("o200k_base");
const corpus = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const samples = corpus.samples.map(({ name, text }) => ({
  name,
  text,
  cl100k_base: cl100k.encode(text).length,
  o200k_base: o200k.encode(text).length,
  claude: countTokens(text),
}));
const produced_by = "tests/tools/tokens/reference.cjs: npm js-tiktoken@1.0.21 (cl100k_base, o200k_base), @anthropic-ai/tokenizer@0.0.4 (claude)";
process.stdout.write(JSON.stringify({ produced_by, samples }, null, 1) + "\n");
