#[test]
fn example_binaries_build() {
    assert!(mcp_tests::example_bin("echo-server").is_file());
}
