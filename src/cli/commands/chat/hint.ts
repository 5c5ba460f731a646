// How to run a model server on this machine: in `mcpkit chat --help`, and said when none answers.

/** How to run a model server on this machine: in the help, and said when none answers. */
export const MODEL_SERVER_HINT = `To try the chat without a cloud key, run a model server on this machine:
  Ollama:  ollama serve, then ollama pull llama3.2, then --model ollama:llama3.2 (OLLAMA_HOST when not localhost:11434)
  any OpenAI-compatible server (llama.cpp's llama-server, vLLM, LM Studio):
           --model openai:NAME with OPENAI_BASE_URL=http://127.0.0.1:PORT/v1`;
