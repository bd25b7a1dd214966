//! Diesel table definitions shared by both backends (written to match `migrations/`).

diesel::table! {
    users (id) {
        id -> BigInt,
        username -> Text,
        password -> Text,
        first_name -> Text,
        last_name -> Text,
        email -> Text,
        is_superuser -> Bool,
        is_system_auditor -> Bool,
        is_active -> Bool,
        external_account -> Nullable<Text>,
        last_login -> Nullable<Timestamp>,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    organizations (id) {
        id -> BigInt,
        name -> Text,
        description -> Text,
        created -> Timestamp,
        modified -> Timestamp,
    }
}

diesel::table! {
    organization_roles (organization_id, user_id, role) {
        organization_id -> BigInt,
        user_id -> BigInt,
        role -> Text,
    }
}

diesel::table! {
    sessions (id) {
        id -> BigInt,
        digest -> Binary,
        user_id -> BigInt,
        created -> Timestamp,
        expires -> Timestamp,
    }
}

diesel::table! {
    settings (key) {
        key -> Text,
        value -> Text,
        modified -> Timestamp,
    }
}

diesel::table! {
    revisions (id) {
        id -> Integer,
        settings -> BigInt,
        users -> BigInt,
        sessions -> BigInt,
        login_failures -> BigInt,
    }
}

diesel::table! {
    login_failures (key) {
        key -> Text,
        window_start -> Timestamp,
        failures -> Integer,
    }
}

diesel::joinable!(organization_roles -> organizations (organization_id));
diesel::joinable!(organization_roles -> users (user_id));
diesel::joinable!(sessions -> users (user_id));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    organizations,
    organization_roles,
    sessions,
    settings,
    revisions,
    login_failures,
);
