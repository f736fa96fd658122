import PackagePlugin

/// Embeds `docs/openapi.json` in the target at build time as `OpenAPIDocument.json`, so the
/// document lives as a document (read and diffed as JSON) and the binary still serves it
/// without reading a file.
@main
struct EmbedDocument: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let input = context.package.directoryURL.appending(path: "docs/openapi.json")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument.swift")
        return [
            .buildCommand(
                displayName: "Embedding docs/openapi.json",
                executable: try context.tool(named: "embed-document").url,
                arguments: [input.path(), output.path(), "OpenAPIDocument"],
                inputFiles: [input],
                outputFiles: [output])
        ]
    }
}
