use super::*;
use serde_json::json;

fn codec() -> StateCodec {
    StateCodec::new(RequestStateKeys::new([1u8; 32]).unwrap())
}

fn carried() -> Carried {
    Carried {
        answers: BTreeMap::from([("a".to_owned(), json!({"action": "accept"}))]),
        asked: vec!["b".to_owned()],
    }
}

#[test]
fn a_sealed_state_opens_once_with_its_own_binding() {
    let codec = codec();
    let binding = Binding::new(
        "tools/call",
        "deploy",
        json!({"env": "prod"}).as_object(),
        None,
    );
    let state = codec.seal(&binding, carried(), None).unwrap();
    assert!(state.starts_with("v1."));
    assert_eq!(codec.open_here(&state, &binding), Ok(carried()));
    assert_eq!(codec.open_here(&state, &binding), Err(Refused::Replayed));
}

#[test]
fn argument_order_does_not_change_the_binding_but_values_do() {
    let a = Binding::new(
        "tools/call",
        "t",
        json!({"x": 1, "y": {"b": 2, "a": 1}}).as_object(),
        None,
    );
    let b = Binding::new(
        "tools/call",
        "t",
        json!({"y": {"a": 1, "b": 2}, "x": 1}).as_object(),
        None,
    );
    let c = Binding::new(
        "tools/call",
        "t",
        json!({"x": 2, "y": {"a": 1, "b": 2}}).as_object(),
        None,
    );
    assert_eq!(a.tag, b.tag);
    assert_ne!(a.tag, c.tag);
}

#[test]
fn tampered_foreign_and_unsigned_states_are_refused() {
    let codec = codec();
    let binding = Binding::new("tools/call", "deploy", None, Some("alice"));
    let state = codec.seal(&binding, carried(), None).unwrap();
    assert!(
        codec
            .open_here(&format!("{state}-TAMPERED"), &binding)
            .is_err()
    );
    // A payload edited to carry other answers, MAC kept.
    let (_, mac) = state.rsplit_once('.').unwrap();
    let forged_payload = B64.encode(
        serde_json::to_vec(&json!({"b": "x", "exp": u64::MAX, "n": "n", "a": {"a": 1}})).unwrap(),
    );
    assert_eq!(
        codec.open_here(&format!("v1.{forged_payload}.{mac}"), &binding),
        Err(Refused::Signature)
    );
    // Another caller, another tool, another method.
    for other in [
        Binding::new("tools/call", "deploy", None, Some("mallory")),
        Binding::new("tools/call", "delete", None, Some("alice")),
        Binding::new("prompts/get", "deploy", None, Some("alice")),
        Binding::new("tools/call", "deploy", None, None),
    ] {
        assert_eq!(codec.open_here(&state, &other), Err(Refused::Foreign));
    }
    // Another server's key.
    let stranger = StateCodec::new(RequestStateKeys::new([2u8; 32]).unwrap());
    assert_eq!(
        stranger.open_here(&state, &binding),
        Err(Refused::Signature)
    );
    assert_eq!(
        codec.open_here("v2.abc.def", &binding),
        Err(Refused::Malformed)
    );
    assert_eq!(codec.open_here("", &binding), Err(Refused::Malformed));
}

#[test]
fn rotated_keys_still_verify_states_of_the_previous_key() {
    let codec = codec();
    let binding = Binding::new("tools/call", "t", None, None);
    let old = codec.seal(&binding, Carried::default(), None).unwrap();
    codec.set_keys(
        RequestStateKeys::new([3u8; 32])
            .unwrap()
            .previous([1u8; 32])
            .unwrap(),
    );
    assert!(codec.open_here(&old, &binding).is_ok());
    let new = codec.seal(&binding, Carried::default(), None).unwrap();
    codec.set_keys(RequestStateKeys::new([3u8; 32]).unwrap());
    assert!(
        codec.open_here(&new, &binding).is_ok(),
        "signed with the current key"
    );
}

#[test]
fn an_expired_state_is_refused() {
    let codec = StateCodec::new(
        RequestStateKeys::new([1u8; 32])
            .unwrap()
            .ttl(Duration::from_secs(0)),
    );
    let binding = Binding::new("tools/call", "t", None, None);
    // Expiry is in whole seconds and at least one second away.
    let state = codec.seal(&binding, Carried::default(), None).unwrap();
    let (head, _) = state.rsplit_once('.').unwrap();
    let payload: Value =
        serde_json::from_slice(&B64.decode(head.strip_prefix("v1.").unwrap()).unwrap()).unwrap();
    assert!(payload["exp"].as_u64().unwrap() >= now());
    let expired = {
        let mut p = payload.clone();
        p["exp"] = json!(now() - 1);
        let head = format!("v1.{}", B64.encode(serde_json::to_vec(&p).unwrap()));
        let mac = sign(&[1u8; 32], head.as_bytes());
        format!("{head}.{}", B64.encode(mac))
    };
    assert_eq!(codec.open_here(&expired, &binding), Err(Refused::Expired));
}

#[test]
fn keys_are_read_from_hex_and_base64() {
    assert_eq!(decode_key(&"0f".repeat(32)).unwrap(), vec![15u8; 32]);
    let b64 = base64::engine::general_purpose::STANDARD.encode([200u8; 32]);
    assert_eq!(decode_key(&b64).unwrap(), vec![200u8; 32]);
    assert!(decode_key("not a key!").is_err());
}

fn binding(target: &str) -> Binding {
    Binding::new("tools/call", target, json!({}).as_object(), None)
}

#[test]
fn a_full_memory_refuses_to_mint_and_never_forgets_a_live_nonce() {
    let codec = StateCodec::with_capacity(RequestStateKeys::new([2u8; 32]).unwrap(), 100, 10);
    let b = binding("deploy");
    let states: Vec<String> = (0..100)
        .map(|_| codec.seal(&b, carried(), None).expect("room for 100"))
        .collect();
    assert_eq!(
        codec.seal(&b, carried(), None),
        Err(SealRefused::Busy),
        "the 101st state is not minted"
    );
    for state in &states[..50] {
        assert_eq!(codec.open_here(state, &b), Ok(carried()));
    }
    // Every replay is refused: nothing was forgotten to make room.
    for state in &states[..50] {
        assert_eq!(codec.open_here(state, &b), Err(Refused::Replayed));
    }
    for state in &states[50..] {
        assert_eq!(codec.open_here(state, &b), Ok(carried()));
        assert_eq!(codec.open_here(state, &b), Err(Refused::Replayed));
    }
    // Spent nonces hold their place until their states expire.
    assert_eq!(codec.seal(&b, carried(), None), Err(SealRefused::Busy));
}

#[test]
fn one_identity_cannot_fill_the_memory_for_everyone() {
    let codec = StateCodec::with_capacity(RequestStateKeys::new([3u8; 32]).unwrap(), 100, 10);
    let b = binding("deploy");
    for _ in 0..10 {
        codec
            .seal(&b, carried(), Some("mallory"))
            .expect("within the share");
    }
    assert_eq!(
        codec.seal(&b, carried(), Some("mallory")),
        Err(SealRefused::Busy)
    );
    codec
        .seal(&b, carried(), Some("alice"))
        .expect("others still have room");
    codec
        .seal(&b, carried(), None)
        .expect("so do anonymous callers");
}

#[test]
fn a_state_too_large_to_open_is_never_minted() {
    let codec = codec();
    let big = Carried {
        answers: BTreeMap::from([("a".to_owned(), json!("x".repeat(MAX_STATE_BYTES)))]),
        asked: vec![],
    };
    assert_eq!(
        codec.seal(&binding("t"), big, None),
        Err(SealRefused::TooLarge)
    );
    let fits = Carried {
        answers: BTreeMap::from([("a".to_owned(), json!("x".repeat(MAX_STATE_BYTES / 2)))]),
        asked: vec![],
    };
    let state = codec.seal(&binding("t"), fits, None).expect("fits");
    assert!(state.len() <= MAX_STATE_BYTES);
    assert!(codec.open_here(&state, &binding("t")).is_ok());
}

#[test]
fn expiry_makes_room_and_a_state_minted_elsewhere_is_refused_when_full() {
    let keys = || {
        RequestStateKeys::new([4u8; 32])
            .unwrap()
            // Long enough for the seals and the open below to happen before any expires,
            // on a loaded machine.
            .ttl(Duration::from_secs(3))
    };
    let here = StateCodec::with_capacity(keys(), 3, 3);
    let elsewhere = StateCodec::new(keys());
    let b = binding("deploy");
    let foreign = elsewhere.seal(&b, carried(), None).unwrap();
    for _ in 0..3 {
        here.seal(&b, carried(), None).unwrap();
    }
    // Full of live nonces: a state this instance did not mint is refused, not
    // remembered in place of one of them.
    assert_eq!(here.open_here(&foreign, &b), Err(Refused::Full));
    // Once they expire (a state stays valid through the second of its expiry), there
    // is room again.
    std::thread::sleep(Duration::from_millis(4_100));
    here.seal(&b, carried(), None)
        .expect("expired nonces make room");
}
