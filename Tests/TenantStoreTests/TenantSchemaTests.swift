import TenantStore
import Testing

@Suite("Tenant schema names")
struct TenantSchemaTests {
    @Test("project and tenant ids map to distinct, quoted schema names")
    func naming() throws {
        #expect(try TenantSchema(projectId: "demo-project").name == "p_demo-project")
        let tenant = try TenantSchema(projectId: "demo-project", tenantId: "Xq3vT9aLm2Ws8Kd1Pz7Rb4Nc6Yh0")
        #expect(tenant.name == "t_Xq3vT9aLm2Ws8Kd1Pz7Rb4Nc6Yh0")
        #expect(tenant.quoted == "\"t_Xq3vT9aLm2Ws8Kd1Pz7Rb4Nc6Yh0\"")
        #expect(tenant.qualified("accounts") == "\"t_Xq3vT9aLm2Ws8Kd1Pz7Rb4Nc6Yh0\".accounts")
        #expect(TenantSchema(schemaName: tenant.name) == tenant)
    }

    @Test(
        "hostile or malformed ids never become schema names",
        arguments: [
            "", "-leading", "x\"; DROP SCHEMA control CASCADE; --", "tenant one", "tënant", "ten\u{0}ant", "a.b", "a/b",
            "'quoted'", String(repeating: "a", count: 10_000), "\u{202E}rtl",
        ]
    )
    func rejectsHostileTenantIDs(id: String) {
        #expect(throws: TenantStoreError.invalidScope) { try TenantSchema(projectId: "demo-project", tenantId: id) }
    }

    @Test("project ids must be lower-case", arguments: ["Demo", "demo_project", "", "-x", "ünï"])
    func rejectsBadProjectIDs(id: String) {
        #expect(throws: TenantStoreError.invalidScope) { try TenantSchema(projectId: id) }
    }

    @Test("catalog names that are not ours are not read back as tenant schemas")
    func foreignCatalogNames() {
        #expect(TenantSchema(schemaName: "public") == nil)
        #expect(TenantSchema(schemaName: "t_") == nil)
        #expect(TenantSchema(schemaName: "p_Upper") == nil)
    }
}
