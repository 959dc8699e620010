// Starts `fieldgate lsp` for SQL migrations, YAML schema files and fieldgate.yaml. The server
// decides what it judges (the nearest fieldgate.yaml routes each file), so the client only
// says which documents to send.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const command = vscode.workspace.getConfiguration("fieldgate").get<string>("path", "fieldgate");
  const server: ServerOptions = { command, args: ["lsp"] };
  const options: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "sql" },
      { scheme: "file", pattern: "**/*.{yaml,yml}" },
    ],
  };
  client = new LanguageClient("fieldgate", "fieldgate", server, options);
  context.subscriptions.push(client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
