//! [`Variables`]: what a match extracts and an expansion reads.

use super::*;

/// Variable values by name: what [`UriTemplate::matches`] extracts and
/// [`UriTemplate::expand`] reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Variables {
    values: BTreeMap<String, VarValue>,
}

/// The value of one variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarValue {
    /// One string: what a non-exploded variable matches.
    String(String),
    /// A list: what an exploded variable (`{x*}`, `{/x*}`, `{?x*}`) matches.
    List(Vec<String>),
}

impl VarValue {
    /// The value as JSON: a string, or an array of strings.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Self::String(value) => serde_json::Value::String(value.clone()),
            Self::List(items) => items
                .iter()
                .cloned()
                .map(serde_json::Value::String)
                .collect(),
        }
    }
}

impl Variables {
    /// No variables.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `name` to one string, replacing any earlier value.
    pub fn insert(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.values
            .insert(name.into(), VarValue::String(value.into()));
    }

    /// Sets `name` to a list, replacing any earlier value. An empty list expands like an
    /// undefined variable.
    pub fn insert_list<I>(&mut self, name: impl Into<String>, values: I)
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let items = values.into_iter().map(Into::into).collect();
        self.values.insert(name.into(), VarValue::List(items));
    }

    /// The value of `name` if it is one string (`None` for a list: see
    /// [`Variables::get_list`]).
    pub fn get(&self, name: &str) -> Option<&str> {
        match self.values.get(name)? {
            VarValue::String(value) => Some(value),
            VarValue::List(_) => None,
        }
    }

    /// The value of `name` as a list; one string reads as a list of one.
    pub fn get_list(&self, name: &str) -> Option<&[String]> {
        match self.values.get(name)? {
            VarValue::String(value) => Some(std::slice::from_ref(value)),
            VarValue::List(items) => Some(items),
        }
    }

    /// The value of `name`, whichever kind it is.
    pub fn get_value(&self, name: &str) -> Option<&VarValue> {
        self.values.get(name)
    }

    /// The variables, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &VarValue)> {
        self.values
            .iter()
            .map(|(name, value)| (name.as_str(), value))
    }

    /// How many variables are set.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no variable is set.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The variables as a JSON object of strings and arrays of strings (what the request
    /// pipeline shows to layers).
    pub fn to_json(&self) -> serde_json::Map<String, serde_json::Value> {
        self.values
            .iter()
            .map(|(name, value)| (name.clone(), value.to_json()))
            .collect()
    }

    /// The variables from [`to_json`](Self::to_json)'s form (as a pipeline layer may have
    /// changed it): strings stay strings, arrays become lists of their items' text, and
    /// anything else its JSON text.
    pub(crate) fn from_json(map: &serde_json::Map<String, serde_json::Value>) -> Self {
        fn text(v: &serde_json::Value) -> String {
            match v {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            }
        }
        let values = map
            .iter()
            .map(|(name, value)| {
                let value = match value {
                    serde_json::Value::Array(items) => {
                        VarValue::List(items.iter().map(text).collect())
                    }
                    other => VarValue::String(text(other)),
                };
                (name.clone(), value)
            })
            .collect();
        Self { values }
    }

    /// Binds a matched value; a variable that appears twice in a template must match the
    /// same value both times.
    pub(super) fn bind(&mut self, name: &str, value: VarValue) -> Option<()> {
        match self.values.get(name) {
            Some(earlier) => (*earlier == value).then_some(()),
            None => {
                self.values.insert(name.to_owned(), value);
                Some(())
            }
        }
    }
}
